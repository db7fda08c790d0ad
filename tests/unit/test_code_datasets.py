"""Datasets that stay datasets: a user's Dataset built per split (``split=`` or ``train=``), a function returning
(train, test), classes from the labels; a Hugging Face ``save_to_disk`` folder and an image folder (made here: no
download); lazy columns that read only the items asked for."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from studio.core.errors import DataError

CODE = '''
import torch
from torch.utils.data import Dataset

READS = []


class ByFlag(Dataset):
    def __init__(self, train: bool = True, n: int = 10):
        self.n, self.offset = n, 0 if train else 100

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        READS.append(i)
        return torch.full((3,), float(i + self.offset)), (i + self.offset) % 5


def pair(n: int = 12):
    return ByFlag(True, n), ByFlag(False, 4)
'''


def write(tmp_path: Path) -> Path:
    path = tmp_path / "data_code.py"
    path.write_text(CODE)
    return path


def test_a_class_with_a_train_flag_and_the_held_out_validation(tmp_path: Path) -> None:
    from studio.core.datasets.code_data import load_python

    data = load_python(path=str(write(tmp_path)), args={"n": 20}, val_fraction=0.25, **{"class": "ByFlag"})
    assert data.classes == ["0", "1", "2", "3", "4"]  # no classes attribute: the largest label + 1
    assert len(data.x_test) == 20 and float(data.x_test[0][0]) == 100.0  # train=False
    x_tr, y_tr, x_val, y_val = data.split_validation(0.25, seed=1)
    assert (len(x_tr), len(x_val)) == (15, 5)
    seen = {int(v[0]) for v in x_tr[:]} | {int(v[0]) for v in x_val[:]}
    assert seen == set(range(20))  # a split of the training items, none lost or repeated
    assert data.input_shape == (3,)


def test_a_function_returning_train_and_test_and_lazy_columns(tmp_path: Path) -> None:
    import sys

    from studio.core.datasets.code_data import load_python

    data = load_python(path=str(write(tmp_path)), args={}, **{"class": "pair"})
    assert (len(data.x_train), len(data.x_test)) == (12, 4)
    module = next(m for n, m in sys.modules.items() if n.startswith("studio_usercode.data_code"))
    module.READS.clear()
    batch = data.x_train[[3, 7]]
    assert batch.shape == (2, 3) and module.READS == [3, 7]  # only the items asked for are read


def test_a_saved_datasets_folder_and_an_image_folder(tmp_path: Path) -> None:
    import datasets
    from PIL import Image

    from studio.core.datasets.hf_data import load_hf_disk

    table = datasets.Dataset.from_dict({"x": [[float(i), 1.0] for i in range(10)], "label": [i % 2 for i in range(10)]})
    table = table.cast_column("label", datasets.ClassLabel(names=["even", "odd"]))
    datasets.DatasetDict({"train": table, "test": table.select(range(4))}).save_to_disk(str(tmp_path / "saved"))
    saved = load_hf_disk(path=str(tmp_path / "saved"), image="x", val_fraction=0.2)
    assert saved.classes == ["even", "odd"] and len(saved.x_test) == 4 and saved.input_shape == (2,)
    assert saved.x_train[[1]].tolist() == [[1.0, 1.0]] and saved.y_train[[1]].tolist() == [1]
    for name in ("cat", "dog"):
        (tmp_path / "pets" / name).mkdir(parents=True)
        for i in range(3):
            Image.fromarray(np.full((10, 10, 3), 40 * i, np.uint8)).save(tmp_path / "pets" / name / f"{i}.png")
    pets = load_hf_disk(path=str(tmp_path / "pets"), size=8)
    assert pets.classes == ["cat", "dog"] and pets.input_shape == (3, 8, 8) and pets.is_image
    with pytest.raises(DataError, match="has no column 'pixels'; its columns: image, label"):
        load_hf_disk(path=str(tmp_path / "pets"), image="pixels")
