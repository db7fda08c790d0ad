"""CIFAR-10/100 python pickles and SVHN .mat files, the formats torchvision downloads.

CIFAR's files are pickles; a dropped pickle could run code when loaded, so they are read with an
unpickler that only rebuilds numpy arrays and plain containers.
"""

from __future__ import annotations

import io
import pickle
from pathlib import Path

import numpy as np

from studio.core.datasets.importers.progress import Progress
from studio.core.datasets.importers.result import TEST, TRAIN, Imported, encode_labels, label_column
from studio.core.datasets.known import KNOWN
from studio.core.errors import DataError

CIFAR10_TRAIN = tuple(f"data_batch_{i}" for i in range(1, 6))
SVHN_FILES = {"train_32x32.mat": TRAIN, "test_32x32.mat": TEST}
_ALLOWED = {
    ("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
    ("numpy.core.multiarray", "scalar"), ("numpy._core.multiarray", "scalar"),
    ("numpy", "ndarray"), ("numpy", "dtype"), ("_codecs", "encode"), ("copyreg", "_reconstructor"),
}


class _ArraysOnly(pickle.Unpickler):
    def find_class(self, module: str, name: str):  # noqa: ANN201 - pickle's signature
        if (module, name) not in _ALLOWED:
            raise pickle.UnpicklingError(f"{module}.{name} is not allowed")
        return super().find_class(module, name)


def safe_unpickle(path: Path) -> dict:
    """A CIFAR batch as a dict with str keys; DataError for anything but arrays and plain data."""
    try:
        obj = _ArraysOnly(io.BytesIO(path.read_bytes()), encoding="latin1").load()
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError, IndexError) as err:
        raise DataError(f"{path.name} is not a CIFAR batch Studio can read safely ({err})") from None
    except OSError as err:
        raise DataError(f"cannot read {path.name}: {err.strerror}") from None
    if not isinstance(obj, dict):
        raise DataError(f"{path.name} is not a CIFAR batch (it holds {type(obj).__name__}, not a dict)")
    return {(k.decode("latin1") if isinstance(k, bytes) else str(k)): v for k, v in obj.items()}


def find_cifar(folder: Path) -> tuple[str, dict[int, list[Path]]] | None:
    """('cifar10'|'cifar100', {split: batch files}) when ``folder`` holds CIFAR python batches."""
    names = {p.name: p for p in folder.iterdir() if p.is_file()} if folder.is_dir() else {}
    if all(n in names for n in CIFAR10_TRAIN) and "test_batch" in names:
        return "cifar10", {TRAIN: [names[n] for n in CIFAR10_TRAIN], TEST: [names["test_batch"]]}
    if {"train", "test", "meta"} <= set(names):
        return "cifar100", {TRAIN: [names["train"]], TEST: [names["test"]]}
    return None


def import_cifar(kind: str, files: dict[int, list[Path]], source: str, progress: Progress) -> Imported:
    key = "labels" if kind == "cifar10" else "fine_labels"
    progress.stage(f"reading CIFAR batches from {source}", sum(len(v) for v in files.values()))
    xs, ys, codes = [], [], []
    for code, paths in sorted(files.items()):
        for path in paths:
            batch = safe_unpickle(path)
            if "data" not in batch or key not in batch:
                raise DataError(f"{path.name} is not a {KNOWN[kind].title} batch (no 'data' or '{key}')")
            data = np.asarray(batch["data"])
            labels = np.asarray(batch[key])
            if data.dtype != np.uint8 or data.ndim != 2 or data.shape[1] != 3 * 32 * 32 or len(data) != len(labels):
                raise DataError(f"{path.name}: expected uint8 rows of 3072 pixels with one label each; got "
                                f"{data.dtype} {list(data.shape)} and {len(labels)} labels")
            xs.append(data.reshape(-1, 3, 32, 32))
            ys.append(label_column(labels, path.name))
            codes.append(np.full(len(labels), code, np.uint8))
            progress.advance()
    x = np.ascontiguousarray(np.concatenate(xs))
    split = np.concatenate(codes)
    sizes = (int((split == TRAIN).sum()), int((split == TEST).sum()))
    catalog = kind if sizes == KNOWN[kind].sizes else None
    y, classes, note = encode_labels(np.concatenate(ys), known=KNOWN[kind].classes)
    return Imported(x, y, split, classes, notes=[note] if note else [], catalog=catalog,
                    description=f"{KNOWN[kind].title} batches from {source}: 3×32×32 images, {len(classes)} classes")


def find_svhn(folder: Path) -> dict[int, Path]:
    return {code: folder / name for name, code in SVHN_FILES.items() if (folder / name).is_file()}


def import_svhn(files: dict[int, Path], source: str, progress: Progress) -> Imported:
    try:
        from scipy.io import loadmat
    except ImportError:
        raise DataError("reading SVHN .mat files needs scipy: pip install scipy") from None
    progress.stage(f"reading SVHN files from {source}", len(files))
    xs, ys, codes = [], [], []
    for code, path in sorted(files.items()):
        try:
            mat = loadmat(path)
        except Exception as err:  # noqa: BLE001 - scipy raises IndexError, MatReadError, … on a broken file
            raise DataError(f"{path.name} is not a readable SVHN .mat file ({err or type(err).__name__})") from None
        if "X" not in mat or "y" not in mat or mat["X"].ndim != 4:
            raise DataError(f"{path.name} is not an SVHN file (it needs arrays X (32, 32, 3, N) and y)")
        x = np.ascontiguousarray(mat["X"].transpose(3, 2, 0, 1)).astype(np.uint8)
        y = mat["y"].reshape(-1).astype(np.int64) % 10  # SVHN labels the digit 0 as 10
        if len(x) != len(y):
            raise DataError(f"{path.name} holds {len(x)} images but {len(y)} labels")
        xs.append(x)
        ys.append(y)
        codes.append(np.full(len(y), code, np.uint8))
        progress.advance()
    split = np.concatenate(codes)
    sizes = (int((split == TRAIN).sum()), int((split == TEST).sum()))
    y, classes, note = encode_labels(np.concatenate(ys), known=KNOWN["svhn"].classes)
    return Imported(np.concatenate(xs), y, split, classes, notes=[note] if note else [],
                    catalog="svhn" if sizes == KNOWN["svhn"].sizes else None,
                    description=f"SVHN .mat files from {source}: 3×32×32 images, {len(classes)} classes")
