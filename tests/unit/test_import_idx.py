"""IDX files (MNIST's format), Debian's Fashion-MNIST, CIFAR batches, and the catalog offline."""

from __future__ import annotations

import gzip
import os
import pickle
from pathlib import Path

import numpy as np
import pytest

from studio.core.datasets import DATASETS, cache
from studio.core.datasets.importers.pipeline import import_path
from studio.core.datasets.torchvision_catalog import check_online, ensure, load_catalog
from studio.core.errors import DataError
from tests.unit import import_fixtures as fx

DEBIAN = Path("/usr/share/datasets/fashion-mnist")
needs_debian = pytest.mark.skipif(not (DEBIAN / "train-images-idx3-ubyte.gz").exists(),
                                  reason="Debian's dataset-fashion-mnist package is not installed")


@pytest.mark.parametrize("gz", [True, False])
def test_idx_folder_gz_or_raw(tmp_path, gz):
    folder = fx.idx_folder(tmp_path / "digits", gz=gz)
    report = import_path(folder)
    assert report["num_samples"] == 80 and report["shape"] == [1, 8, 8] and report["num_classes"] == 4
    assert report["source_splits"] == {"train": 60, "val": 0, "test": 20}
    assert report["kind"] == "imported"  # not the real MNIST: sizes differ


def test_dropping_one_idx_file_imports_its_set(tmp_path):
    folder = fx.idx_folder(tmp_path / "digits")
    assert import_path(folder / "train-labels-idx1-ubyte.gz")["num_samples"] == 80


def test_idx_wrong_magic(tmp_path):
    folder = fx.idx_folder(tmp_path / "bad")
    with gzip.open(folder / "train-images-idx3-ubyte.gz", "wb") as fh:
        fh.write(b"\x12\x34\x08\x03" + b"\x00" * 40)
    with pytest.raises(DataError, match="train-images-idx3-ubyte.gz is not an IDX file .wrong magic number"):
        import_path(folder)
    assert cache.entries() == []


def test_idx_truncated_body(tmp_path):
    folder = fx.idx_folder(tmp_path / "short", gz=False)
    path = folder / "t10k-images-idx3-ubyte"
    path.write_bytes(path.read_bytes()[:-100])
    with pytest.raises(DataError, match="t10k-images-idx3-ubyte is truncated"):
        import_path(folder)


def test_idx_that_declares_no_values_is_refused_in_a_sentence(tmp_path):
    # found by the parser fuzzing: a size of 0 beside sizes whose product overflows numpy's index made numpy
    # refuse to shape the empty array ("array is too big") instead of a DataError
    folder = fx.idx_folder(tmp_path / "empty")
    with gzip.open(folder / "train-images-idx3-ubyte.gz", "wb") as fh:
        fh.write(bytes([0, 0, 8, 4]) + b"".join(d.to_bytes(4, "big") for d in (0, 52, 213677915, 830092990)))
    with pytest.raises(DataError, match=r"declares an array of shape \(0, 52, 213677915, 830092990\): it holds no"):
        import_path(folder)


def test_idx_labels_of_more_than_one_value_a_sample_are_refused(tmp_path):
    folder = fx.idx_folder(tmp_path / "wide")
    fx.write_idx(folder / "t10k-labels-idx1-ubyte.gz", np.zeros((20, 3), np.uint8))
    with pytest.raises(DataError, match=r"t10k-labels-idx1-ubyte.gz holds labels of shape \[20, 3\]; labels are one"):
        import_path(folder)


def test_idx_images_and_labels_disagree(tmp_path):
    folder = fx.idx_folder(tmp_path / "odd")
    fx.write_idx(folder / "t10k-labels-idx1-ubyte.gz", np.zeros(19, np.uint8))
    with pytest.raises(DataError, match="20 images but t10k-labels-idx1-ubyte.gz holds 19 labels"):
        import_path(folder)


@needs_debian
def test_debian_fashion_mnist_is_imported_as_the_catalog_dataset():
    report = import_path(DEBIAN)
    assert report["name"] == "fashion_mnist" and report["kind"] == "catalog"
    assert report["num_samples"] == 70_000 and report["shape"] == [1, 28, 28]
    assert report["classes"][0] == "T-shirt/top" and report["classes"][9] == "Ankle boot"
    assert report["source_splits"] == {"train": 60_000, "val": 0, "test": 10_000}
    assert report["class_counts"] == [7000] * 10
    assert import_path(DEBIAN)["cached"] is True  # instant the second time


@needs_debian
def test_catalog_loads_fashion_mnist_offline_from_debian(monkeypatch):
    monkeypatch.setenv("STUDIO_OFFLINE", "1")  # never download in tests
    data = load_catalog("fashion_mnist", seed=0)
    assert tuple(data.x_test.shape) == (10_000, 1, 28, 28)
    assert len(data.y_train) + len(data.y_val) == 60_000
    assert len(data.y_val) == 12_000  # 20 % of the training part (data.val_fraction)
    assert data.x_train.dtype.is_floating_point is False


def test_catalog_offline_message_says_how_to_import(monkeypatch):
    monkeypatch.setenv("STUDIO_OFFLINE", "1")
    with pytest.raises(DataError) as info:
        ensure("cifar10")
    text = str(info.value)
    assert "CIFAR-10 is not on this machine" in text and "offline" in text
    assert "studio data import FOLDER" in text and "drop the folder" in text
    assert cache.entries() == []


def test_an_unreachable_host_is_reported_as_offline(monkeypatch):
    monkeypatch.delenv("STUDIO_OFFLINE", raising=False)
    with pytest.raises(DataError, match="offline.*127.0.0.1 cannot be reached"):
        check_online("mnist", ["http://127.0.0.1:9/mnist/train-images-idx3-ubyte.gz"])


def test_catalog_entries_are_registered():
    for name in ("mnist", "fashion_mnist", "kmnist", "emnist_balanced", "cifar10", "cifar100", "svhn"):
        assert name in DATASETS


def _cifar_batch(path: Path, n: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    batch = {b"batch_label": b"x", b"labels": list(rng.integers(0, 10, n)),
             b"data": rng.integers(0, 256, (n, 3072), dtype=np.uint8), b"filenames": [b"f"] * n}
    path.write_bytes(pickle.dumps(batch, protocol=2))


def test_cifar_batches_folder(tmp_path):
    folder = tmp_path / "cifar-10-batches-py"
    folder.mkdir()
    for i in range(1, 6):
        _cifar_batch(folder / f"data_batch_{i}", 20, i)
    _cifar_batch(folder / "test_batch", 10, 9)
    report = import_path(folder)
    assert report["shape"] == [3, 32, 32] and report["num_samples"] == 110
    assert report["source_splits"]["test"] == 10
    assert report["classes"][:2] == ["airplane", "automobile"]
    assert report["kind"] == "imported"  # a small fake, not the real CIFAR-10


class _Evil:
    def __reduce__(self):
        return (os.system, ("touch /tmp/studio_pwned",))


def test_a_pickle_that_would_run_code_is_refused(tmp_path):
    folder = tmp_path / "cifar-10-batches-py"
    folder.mkdir()
    for name in [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]:
        (folder / name).write_bytes(pickle.dumps({b"data": _Evil(), b"labels": [1]}, protocol=2))
    with pytest.raises(DataError, match="not a CIFAR batch Studio can read safely"):
        import_path(folder)
    assert not Path("/tmp/studio_pwned").exists()


def test_torchvision_raw_folder_layout_is_recognised(tmp_path):
    raw = tmp_path / "data" / "FashionMNIST" / "raw"
    fx.idx_folder(raw)
    report = import_path(tmp_path / "data")
    assert report["num_samples"] == 80
