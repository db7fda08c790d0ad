"""CSV tables and NumPy files: layouts, label mapping, and every kind of bad input."""

from __future__ import annotations

import numpy as np
import pytest

from studio.core.datasets import cache
from studio.core.datasets.importers.options import ChoiceNeeded, ImportOptions
from studio.core.datasets.importers.pipeline import import_path
from studio.core.errors import DataError
from tests.unit import import_fixtures as fx


# --- CSV -------------------------------------------------------------------------------------
def test_sign_language_layout_with_labels_mapped(tmp_path):
    report = import_path(fx.sign_csv(tmp_path / "sign_mnist_train.csv", rows=40, side=6))
    assert report["name"] == "sign_mnist_train"
    assert report["num_samples"] == 40 and report["shape"] == [1, 6, 6]
    assert report["classes"] == ["0", "3", "10", "24"]  # numeric order, not text order
    assert any("not 0..3" in n and "numbered 0..3" in n for n in report["notes"])
    arrays = cache.load_arrays("sign_mnist_train")
    assert sorted(np.unique(arrays["y"])) == [0, 1, 2, 3]
    first = (tmp_path / "sign_mnist_train.csv").read_text().splitlines()[1].split(",")
    assert arrays["x"][0, 0].ravel().tolist() == [int(v) for v in first[1:]]


def test_train_and_test_csv_in_a_folder(tmp_path):
    folder = tmp_path / "sign"
    folder.mkdir()
    fx.sign_csv(folder / "sign_mnist_train.csv", rows=40)
    fx.sign_csv(folder / "sign_mnist_test.csv", rows=12)
    report = import_path(folder)
    assert report["source_splits"] == {"train": 40, "val": 0, "test": 12}


def test_headerless_csv_takes_the_first_column_as_label(tmp_path):
    report = import_path(fx.sign_csv(tmp_path / "mnist_like.csv", rows=8, side=4, header=False,
                                     labels=[0, 1] * 4))
    assert report["num_classes"] == 2 and report["shape"] == [1, 4, 4]
    assert any("first column was taken as the label" in n for n in report["notes"])


def test_text_labels_and_a_chosen_label_column(tmp_path):
    path = tmp_path / "shapes.csv"
    rows = ["p1,p2,p3,p4,kind"] + [f"{i},{i},{i},{i},{'round' if i % 2 else 'square'}" for i in range(10)]
    path.write_text("\n".join(rows))
    with pytest.raises(ChoiceNeeded) as info:
        import_path(path)
    assert info.value.option == "label_column" and "kind" in info.value.choices
    assert "--label-column" in str(info.value)
    report = import_path(path, ImportOptions(label_column="kind"))
    assert report["classes"] == ["round", "square"] and report["shape"] == [1, 2, 2]


def test_csv_non_numeric_pixel_names_row_and_column(tmp_path):
    path = fx.sign_csv(tmp_path / "bad.csv", rows=10, side=3)
    lines = path.read_text().splitlines()
    cells = lines[5].split(",")
    cells[4] = "abc"
    lines[5] = ",".join(cells)
    path.write_text("\n".join(lines))
    with pytest.raises(DataError, match=r"row 6, column 'pixel4' holds 'abc'.*numbers"):
        import_path(path)


def test_csv_ragged_rows(tmp_path):
    path = fx.sign_csv(tmp_path / "ragged.csv", rows=10, side=3)
    lines = path.read_text().splitlines()
    lines[7] = lines[7].rsplit(",", 1)[0]
    path.write_text("\n".join(lines))
    with pytest.raises(DataError, match="row 8 has 9 values but the table has 10 columns"):
        import_path(path)


def test_csv_not_square_needs_a_shape(tmp_path):
    path = tmp_path / "flat.csv"
    path.write_text("label,a,b,c,d,e,f\n" + "\n".join(f"{i % 2},1,2,3,4,5,6" for i in range(6)))
    with pytest.raises(DataError, match="6 pixel values.*not a square.*--shape"):
        import_path(path)
    assert import_path(path, ImportOptions(shape=(1, 2, 3)))["shape"] == [1, 2, 3]


def test_csv_empty_and_header_only(tmp_path):
    (tmp_path / "empty.csv").write_text("")
    with pytest.raises(DataError, match="empty"):
        import_path(tmp_path / "empty.csv")
    (tmp_path / "header.csv").write_text("label,p1,p2,p3,p4\n")
    with pytest.raises(DataError, match="no rows"):
        import_path(tmp_path / "header.csv")


def test_csv_that_is_binary(tmp_path):
    (tmp_path / "binary.csv").write_bytes(bytes(range(256)) * 4)
    with pytest.raises(DataError, match="not a text CSV"):
        import_path(tmp_path / "binary.csv")


# --- NumPy -----------------------------------------------------------------------------------
def test_npz_with_x_and_y(tmp_path):
    rng = np.random.default_rng(0)
    np.savez(tmp_path / "d.npz", x=rng.random((30, 8, 8, 3)).astype(np.float32), y=np.arange(30) % 3)
    report = import_path(tmp_path / "d.npz")
    assert report["shape"] == [3, 8, 8] and report["num_classes"] == 3  # channels-last floats in 0..1
    x = cache.load_arrays("d")["x"]
    assert x.dtype == np.uint8 and x.max() > 200


def test_npz_with_splits_and_class_names(tmp_path):
    rng = np.random.default_rng(0)
    np.savez(tmp_path / "fm.npz", x_train=rng.integers(0, 255, (40, 5, 5), dtype=np.uint8),
             y_train=np.arange(40) % 2, x_test=rng.integers(0, 255, (10, 5, 5), dtype=np.uint8),
             y_test=np.arange(10) % 2, classes=np.array(["shoe", "bag"]))
    report = import_path(tmp_path / "fm.npz")
    assert report["classes"] == ["shoe", "bag"]
    assert report["source_splits"] == {"train": 40, "val": 0, "test": 10}


def test_npz_lengths_differ(tmp_path):
    np.savez(tmp_path / "bad.npz", x=np.zeros((10, 4, 4), np.uint8), y=np.arange(9) % 2)
    with pytest.raises(DataError, match="x has 10 samples but y has 9 labels"):
        import_path(tmp_path / "bad.npz")


def test_npz_labels_of_more_than_one_value_a_sample_are_refused_and_a_column_is_read(tmp_path):
    # found by the parser fuzzing: a test split's labels of shape (2, 0) beside 1-D training labels reached
    # numpy's concatenate, which refused in its own words
    x = np.zeros((2, 4, 4), np.uint8)
    np.savez(tmp_path / "bad.npz", x_train=x, y_train=np.zeros(2, np.uint8), x_test=x, y_test=np.zeros((2, 0)))
    with pytest.raises(DataError, match=r"bad.npz: y_test holds labels of shape \[2, 0\]; labels are one value a"):
        import_path(tmp_path / "bad.npz")
    np.savez(tmp_path / "column.npz", x=np.zeros((6, 4, 4), np.uint8), y=(np.arange(6) % 2).reshape(6, 1))
    assert import_path(tmp_path / "column.npz")["num_classes"] == 2


def test_npz_ambiguous_names_ask_and_can_be_chosen(tmp_path):
    np.savez(tmp_path / "odd.npz", a=np.zeros((6, 4, 4), np.uint8), b=np.zeros((6, 4, 4), np.uint8),
             c=np.arange(6) % 2)
    with pytest.raises(ChoiceNeeded) as info:
        import_path(tmp_path / "odd.npz")
    assert info.value.option == "x_key" and info.value.choices == ["a", "b", "c"]
    assert import_path(tmp_path / "odd.npz", ImportOptions(x_key="b", y_key="c"))["num_samples"] == 6


def test_npz_with_pickled_objects_is_refused(tmp_path):
    np.savez(tmp_path / "obj.npz", x=np.zeros((4, 2, 2)), y=np.array([{"a": 1}, 2, 3, 4], dtype=object))
    with pytest.raises(DataError, match="Python objects"):
        import_path(tmp_path / "obj.npz")


def test_folder_of_npy_files_and_a_lone_npy(tmp_path):
    folder = tmp_path / "arrays"
    folder.mkdir()
    np.save(folder / "x.npy", np.zeros((8, 3, 6, 6), np.uint8))
    np.save(folder / "y.npy", np.arange(8) % 2)
    assert import_path(folder)["shape"] == [3, 6, 6]
    np.save(tmp_path / "alone.npy", np.zeros((3, 3)))
    with pytest.raises(DataError, match="single array.*x.npy and y.npy"):
        import_path(tmp_path / "alone.npy")


def test_npz_that_is_not_one(tmp_path):
    (tmp_path / "fake.npz").write_bytes(b"nope")
    with pytest.raises(DataError, match="not a readable .npz"):
        import_path(tmp_path / "fake.npz")
