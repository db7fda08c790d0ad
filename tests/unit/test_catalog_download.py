"""Downloading catalog datasets through torchvision, from an HTTP server on this machine.

No test reaches the internet: torchvision's download URLs are pointed at a local server (and its
checksums at the files served), so the real path runs — the host check, torchvision's download and
integrity check, Studio's progress and cancel, the conversion and the cache entry.
"""

from __future__ import annotations

import functools
import hashlib
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from studio.core.contracts.progress import Cancelled
from studio.core.datasets import cache
from studio.core.datasets.importers.pipeline import import_path
from studio.core.datasets.importers.progress import Progress
from studio.core.datasets.torchvision_catalog import ensure
from studio.core.errors import DataError
from tests.unit import import_fixtures as fx

IDX_FILES = ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
             "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz")


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """(base URL, folder it serves)."""
    folder = tmp_path / "served"
    folder.mkdir()
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(folder)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/", folder
    finally:
        httpd.shutdown()
        httpd.server_close()


def _md5(path: Path) -> str:
    return hashlib.md5(path.read_bytes()).hexdigest()


@pytest.fixture
def mnist_server(server, monkeypatch) -> tuple[str, Path]:
    """The local server holding a small MNIST in IDX (60 train + 20 test 8×8 images, 4 classes);
    torchvision's MNIST class downloads from it and checks the served files' checksums."""
    import torchvision.datasets as tvd

    url, folder = server
    fx.idx_folder(folder)
    monkeypatch.delenv("STUDIO_OFFLINE", raising=False)
    monkeypatch.setattr(tvd.MNIST, "mirrors", [url])
    monkeypatch.setattr(tvd.MNIST, "resources", [(name, _md5(folder / name)) for name in IDX_FILES])
    return url, folder


def _progress_log() -> tuple[Progress, list[tuple[int, int, str]]]:
    log: list[tuple[int, int, str]] = []
    return Progress(lambda r: log.append((r.done, r.total, r.text)), interval=0), log


def test_a_catalog_dataset_is_downloaded_converted_and_cached(mnist_server):
    from studio.core.datasets.imported import load_imported

    _, folder = mnist_server
    progress, log = _progress_log()
    report = ensure("mnist", progress)
    assert report["kind"] == "catalog" and report["num_samples"] == 80 and report["shape"] == [1, 8, 8]
    assert report["source_splits"] == {"train": 60, "val": 0, "test": 20}
    # progress reported each file's bytes as it arrived, the total from the server's Content-Length
    size = (folder / "train-images-idx3-ubyte.gz").stat().st_size
    stages = [entry for entry in log if entry[2] == "downloading train-images-idx3-ubyte.gz"]
    assert stages[0][:2] == (0, size) and stages[-1][0] == size
    # the cached images are the served ones, in order, train then test
    arrays = cache.load_arrays("mnist")
    train = arrays["x"][arrays["split"] == 0]
    written = np.random.default_rng(1).integers(0, 256, (60, 8, 8), dtype=np.uint8)  # as idx_folder drew them
    np.testing.assert_array_equal(train[:, 0], written)
    assert load_imported("mnist").num_classes == 10  # MNIST's ten digit names, though only 4 occur here
    # a second call is a cache hit: the server may be gone
    for name in IDX_FILES:
        (folder / name).unlink()
    assert ensure("mnist")["num_samples"] == 80


def test_a_corrupted_download_is_refused_and_nothing_is_saved(mnist_server, monkeypatch):
    import torchvision.datasets as tvd

    url, folder = mnist_server
    monkeypatch.setattr(tvd.MNIST, "resources", [(IDX_FILES[0], "0" * 32)] + tvd.MNIST.resources[1:])
    with pytest.raises(DataError) as info:
        ensure("mnist")
    text = str(info.value)
    assert text.startswith("MNIST could not be downloaded (") and "nothing was saved" in text
    assert "offline" not in text  # the host answered: saying "offline" would send the person the wrong way
    assert cache.entries() == [] and not list(cache.root().glob(".tmp-*"))


def test_a_missing_file_on_the_server_is_a_clear_error(mnist_server):
    _, folder = mnist_server
    (folder / IDX_FILES[1]).unlink()
    with pytest.raises(DataError, match=r"MNIST could not be downloaded \(.*404"):
        ensure("mnist")
    assert cache.entries() == []


def test_cancelling_a_download_leaves_no_cache_entry(mnist_server):
    progress = Progress(cancelled=lambda: True, interval=0)
    calls = []
    progress.stage = lambda text, total=0: calls.append(text)  # let the stage start; cancel on the first bytes
    with pytest.raises(Cancelled):
        ensure("mnist", progress)
    assert calls == ["downloading train-images-idx3-ubyte.gz"]
    assert cache.entries() == [] and not list(cache.root().glob(".tmp-*"))


def _svhn_mat(path: Path, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """An SVHN .mat file: X (32, 32, 3, N) uint8, y (N, 1) with the digit 0 labelled 10."""
    from scipy.io import savemat

    rng = np.random.default_rng(seed)
    x = rng.integers(0, 256, (32, 32, 3, n), dtype=np.uint8)
    y = (np.arange(n) % 10 + 1).reshape(-1, 1).astype(np.uint8)  # 1..10
    savemat(path, {"X": x, "y": y})
    return x, y


def test_svhn_is_downloaded_with_its_labels_and_layout(server, monkeypatch):
    import torchvision.datasets as tvd

    url, folder = server
    x_train, _ = _svhn_mat(folder / "train_32x32.mat", 30, 0)
    _svhn_mat(folder / "test_32x32.mat", 12, 1)
    split_list = {s: [url + f"{s}_32x32.mat", f"{s}_32x32.mat", _md5(folder / f"{s}_32x32.mat")]
                  for s in ("train", "test")}
    monkeypatch.delenv("STUDIO_OFFLINE", raising=False)
    monkeypatch.setattr(tvd.SVHN, "split_list", split_list)
    report = ensure("svhn")
    assert report["kind"] == "catalog" and report["shape"] == [3, 32, 32]
    assert report["source_splits"] == {"train": 30, "val": 0, "test": 12}
    arrays = cache.load_arrays("svhn")
    np.testing.assert_array_equal(arrays["x"][0], x_train[..., 0].transpose(2, 0, 1))  # (C, H, W)
    assert list(arrays["y"][:10]) == [1, 2, 3, 4, 5, 6, 7, 8, 9, 0]  # torchvision maps 10 → digit 0


def test_svhn_mat_files_dropped_as_a_folder_are_imported(tmp_path):
    folder = tmp_path / "svhn"
    folder.mkdir()
    x_train, _ = _svhn_mat(folder / "train_32x32.mat", 20, 2)
    _svhn_mat(folder / "test_32x32.mat", 10, 3)
    report = import_path(folder)
    assert report["num_samples"] == 30 and report["shape"] == [3, 32, 32] and report["num_classes"] == 10
    assert report["source_splits"] == {"train": 20, "val": 0, "test": 10}
    assert report["kind"] == "imported"  # sizes differ from the real SVHN's
    arrays = cache.load_arrays(report["name"])
    np.testing.assert_array_equal(arrays["x"][arrays["split"] == 0][3], x_train[..., 3].transpose(2, 0, 1))
    assert sorted(set(arrays["y"].tolist())) == list(range(10))


def test_a_broken_svhn_file_is_named(tmp_path):
    folder = tmp_path / "svhn"
    folder.mkdir()
    (folder / "train_32x32.mat").write_bytes(b"MATLAB 5.0 MAT-file, but not really")
    with pytest.raises(DataError, match="train_32x32.mat is not a readable SVHN .mat file"):
        import_path(folder)


def test_cifar10_archive_is_downloaded_unpacked_and_cached(server, tmp_path, monkeypatch):
    import pickle
    import tarfile

    import torchvision.datasets as tvd

    url, folder = server
    batches = tmp_path / "cifar-10-batches-py"
    batches.mkdir()
    rng = np.random.default_rng(4)
    first = None
    for name, n in [(f"data_batch_{i}", 8) for i in range(1, 6)] + [("test_batch", 6)]:
        data = rng.integers(0, 256, (n, 3072), dtype=np.uint8)
        first = data[0] if first is None else first
        labels = [int(v) for v in rng.integers(0, 10, n)]
        (batches / name).write_bytes(pickle.dumps({"data": data, "labels": labels}))
    (batches / "batches.meta").write_bytes(pickle.dumps({"label_names": [f"c{i}" for i in range(10)]}))
    with tarfile.open(folder / "cifar-10-python.tar.gz", "w:gz") as tar:
        tar.add(batches, arcname="cifar-10-batches-py")
    monkeypatch.delenv("STUDIO_OFFLINE", raising=False)
    monkeypatch.setattr(tvd.CIFAR10, "url", url + "cifar-10-python.tar.gz")
    monkeypatch.setattr(tvd.CIFAR10, "tgz_md5", _md5(folder / "cifar-10-python.tar.gz"))
    monkeypatch.setattr(tvd.CIFAR10, "train_list", [[f"data_batch_{i}", _md5(batches / f"data_batch_{i}")]
                                                    for i in range(1, 6)])
    monkeypatch.setattr(tvd.CIFAR10, "test_list", [["test_batch", _md5(batches / "test_batch")]])
    monkeypatch.setattr(tvd.CIFAR10, "meta", {**tvd.CIFAR10.meta, "md5": _md5(batches / "batches.meta")})
    report = ensure("cifar10")
    assert report["kind"] == "catalog" and report["shape"] == [3, 32, 32]
    assert report["source_splits"] == {"train": 40, "val": 0, "test": 6}
    assert report["classes"][:2] == ["airplane", "automobile"]  # Studio's names for the catalog entry
    np.testing.assert_array_equal(cache.load_arrays("cifar10")["x"][0].reshape(-1), first)  # CHW, as stored
