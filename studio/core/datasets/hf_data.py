"""``[data] name = "hf_disk"``: a Hugging Face ``datasets`` folder (written by ``save_to_disk``) or an image
folder (one sub-folder per class, read by the ``imagefolder`` builder), as train/val/test datasets of
(input, label) pairs read through a DataLoader (core/datasets/code_data.py). Workers only: imports torch.

Inputs are the ``image`` column (PIL images → uint8 tensors C×H×W, resized to ``size`` when it is set) or a column
of numbers (a float tensor); labels the ``label`` column (a ``ClassLabel``'s names are the classes). The splits
``train``, ``validation`` (or ``val``) and ``test`` are used when the folder has them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch

from studio.core.datasets.code_data import CodeData, random_split
from studio.core.errors import ConfigError, DataError


class Columns(torch.utils.data.Dataset):
    """One split of a ``datasets.Dataset`` as (input tensor, label) pairs."""

    def __init__(self, table: Any, image: str, label: str, size: int) -> None:
        self.table, self.image, self.label, self.size = table, image, label, size

    def __len__(self) -> int:
        return len(self.table)

    def __getitem__(self, i: int) -> tuple[torch.Tensor, int]:
        row = self.table[int(i)]
        return to_tensor(row[self.image], self.size), int(row[self.label])


def to_tensor(value: Any, size: int) -> torch.Tensor:
    """A PIL image as uint8 (C, H, W) (``size`` > 0: resized to size × size), anything else as float32."""
    if hasattr(value, "convert") and hasattr(value, "mode"):  # a PIL image
        image = value.convert("L" if value.mode in ("L", "1", "I", "F") else "RGB")
        if size:
            image = image.resize((size, size))
        array = np.asarray(image, dtype=np.uint8)
        array = array[None] if array.ndim == 2 else np.moveaxis(array, -1, 0)
        return torch.from_numpy(np.ascontiguousarray(array))
    return torch.as_tensor(np.asarray(value, dtype=np.float32))


def open_folder(path: str) -> Any:
    """The folder as a ``datasets.DatasetDict``: saved with ``save_to_disk``, else an image folder."""
    try:
        import datasets
    except ImportError:
        raise ConfigError("hf_disk needs the datasets package: pip install 'studio[hf]'") from None
    folder = Path(path).expanduser()
    if not folder.is_dir():
        raise DataError(f"no dataset folder at {path}" if path else "data.path is empty: give a datasets folder")
    if (folder / "dataset_dict.json").is_file() or (folder / "state.json").is_file():
        loaded = datasets.load_from_disk(str(folder))
        return loaded if isinstance(loaded, datasets.DatasetDict) else datasets.DatasetDict({"train": loaded})
    if not any(p.is_dir() for p in folder.iterdir()):
        raise DataError(f"{folder} is neither a saved datasets folder (no dataset_dict.json) nor an image folder "
                        "(no class sub-folders)")
    return datasets.load_dataset("imagefolder", data_dir=str(folder))


def load_hf_disk(name: str = "hf_disk", seed: int = 0, path: str = "", image: str = "image", label: str = "label",
                 size: int = 0, val_fraction: float = 0.1, test_fraction: float = 0.1, workers: int = 2,
                 **_: Any) -> CodeData:
    """The folder's splits (train, validation, test; missing ones held out of train, seeded)."""
    tables = open_folder(path)
    if "train" not in tables:
        raise DataError(f"{path} has no train split; it has: {', '.join(tables)}")
    train_table = tables["train"]
    for column in (image, label):
        if column not in train_table.column_names:
            raise DataError(f"{path} has no column {column!r}; its columns: {', '.join(train_table.column_names)} "
                            f"(set data.image / data.label)")
    names = getattr(train_table.features[label], "names", None)

    def split(key: str) -> Any:
        return Columns(tables[key], image, label, size) if key in tables else None

    train, val, test = split("train"), split("validation") or split("val"), split("test")
    if test is None:
        train, test = random_split(train, test_fraction, seed + 7)
    if not len(train):
        raise DataError(f"{path} has no training samples")
    classes = [str(n) for n in names] if names else [str(i) for i in range(int(max(train_table[label])) + 1)]
    x0 = train[0][0]
    return CodeData.of(train, val, test, classes, Path(path).name, workers,
                       {"source": f"Hugging Face datasets folder {path}", "input_shape": list(x0.shape)})
