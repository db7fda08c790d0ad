"""What a dropped path is: a folder of class folders, an archive, a CSV, NumPy files, IDX files,
CIFAR batches or SVHN files — or not a dataset, with a sentence saying what Studio reads."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from studio.core.datasets.importers.archive import is_archive
from studio.core.datasets.importers.cifar_svhn import CIFAR10_TRAIN, SVHN_FILES, find_cifar, find_svhn
from studio.core.datasets.importers.folder import looks_like_image_folder, scan, unwrap, visible
from studio.core.datasets.importers.idx_files import _role, find_idx_files, is_idx_name
from studio.core.datasets.importers.images import is_image_name
from studio.core.datasets.importers.result import TEST, TRAIN, VAL
from studio.core.errors import DataError

READS = ("folders of images (one subfolder per class), .zip or .tar.gz archives of them, CSV tables, "
         ".npz/.npy arrays and IDX files")
CATALOG_ARCHIVES = ("cifar-10-python.tar.gz", "cifar-100-python.tar.gz")


@dataclass
class Source:
    """A recognised source. ``kind`` picks the importer; ``files`` are what it reads."""

    kind: str  # images | archive | csv | npz | npy | idx | cifar | svhn
    path: Path  # what was dropped
    root: Path  # the file or folder the importer starts from
    files: Any = field(default=None)
    variant: str = ""  # cifar10 / cifar100

    @property
    def stem(self) -> str:
        """A default dataset name."""
        from studio.core.datasets.importers.archive import archive_stem

        name = self.path.name if self.path.is_dir() else archive_stem(self.path) if self.kind == "archive" \
            else self.path.stem
        return name


def _split_of(name: str) -> int:
    low = name.lower()
    return TEST if "test" in low else VAL if ("val" in low and "train" not in low) else TRAIN


def _csv_files(files: list[Path], where: Path) -> list[tuple[Path, int]]:
    if len(files) == 1:
        return [(files[0], TRAIN)]
    coded = [(f, _split_of(f.name)) for f in files]
    if sorted(c for _, c in coded).count(TRAIN) == 1 and len({c for _, c in coded}) == len(coded):
        return coded
    raise DataError(f"{where} holds several CSV files ({', '.join(f.name for f in files[:4])}); drop one, "
                    "or a folder with one train and one test CSV")


def _idx_group(path: Path) -> list[Path]:
    role = _role(path.name)
    files = find_idx_files(path.parent, depth=1)
    return [f for f in files if role is None or (_role(f.name) or ("",))[0] == role[0]]


def detect_file(path: Path) -> Source:
    name = path.name.lower()
    if is_archive(path):
        return Source("archive", path, path)
    if name.endswith(".csv"):
        return Source("csv", path, path, [(path, TRAIN)])
    if name.endswith(".npz"):
        return Source("npz", path, path)
    if name.endswith(".npy"):
        npys = sorted(p for p in path.parent.glob("*.npy") if not p.name.startswith("."))
        if len(npys) < 2:
            raise DataError(f"{path.name} holds a single array; Studio needs images and labels: put x.npy and "
                            "y.npy in a folder and drop the folder, or save both with np.savez")
        return Source("npy", path.parent, path.parent, npys)
    if is_idx_name(name):
        return Source("idx", path, path.parent, _idx_group(path))
    if name in SVHN_FILES:
        return Source("svhn", path, path.parent, find_svhn(path.parent))
    if name in (*CIFAR10_TRAIN, "test_batch", "batches.meta") or (name in ("train", "test", "meta")
                                                                   and find_cifar(path.parent)):
        found = find_cifar(path.parent)
        if found:
            return Source("cifar", path, path.parent, found[1], found[0])
        raise DataError(f"{path.name} is one CIFAR batch; drop the folder that holds all of them "
                        "(cifar-10-batches-py)")
    if is_image_name(path.name):
        raise DataError(f"{path.name} is a single image, not a dataset; drop the folder that holds one subfolder "
                        "of images per class")
    raise DataError(f"{path.name} is not a dataset Studio can read; it reads {READS}")


def detect_folder(path: Path) -> Source:
    base = unwrap(path)
    idx = find_idx_files(base)
    if idx:
        return Source("idx", path, base, idx)
    for folder in (base, base / "cifar-10-batches-py", base / "cifar-100-python"):
        found = find_cifar(folder)
        if found:
            return Source("cifar", path, folder, found[1], found[0])
    svhn = find_svhn(base)
    if svhn:
        return Source("svhn", path, base, svhn)
    if looks_like_image_folder(base):
        return Source("images", path, base)
    entries = visible(base)
    files = [e for e in entries if e.is_file()]
    by_suffix = {s: [f for f in files if f.name.lower().endswith(s)] for s in (".npz", ".npy", ".csv")}
    if len(by_suffix[".npz"]) == 1:
        return Source("npz", path, by_suffix[".npz"][0])
    if len(by_suffix[".npz"]) > 1:
        raise DataError(f"{base} holds several .npz files ({', '.join(f.name for f in by_suffix['.npz'][:4])}); "
                        "drop one of them")
    if len(by_suffix[".npy"]) >= 2:
        return Source("npy", path, base, by_suffix[".npy"])
    if by_suffix[".csv"]:
        return Source("csv", path, base, _csv_files(by_suffix[".csv"], base))
    archives = [f for f in files if f.name.lower() in CATALOG_ARCHIVES or (len(files) == 1 and is_archive(f))]
    if len(archives) == 1:
        return Source("archive", path, archives[0])
    if not entries:
        raise DataError(f"the folder {path} is empty")
    scan(base)  # raises the precise message (images but no class folders, nothing readable)
    raise DataError(f"no dataset was found in {path}; Studio reads {READS}")


def detect(path: str | Path) -> Source:
    """What ``path`` holds; DataError with a sentence when it is missing or not a dataset."""
    path = Path(path).expanduser()
    if not path.exists():
        raise DataError(f"{path} does not exist")
    path = path.resolve()
    if path.is_dir():
        return detect_folder(path)
    if path.is_file():
        return detect_file(path)
    raise DataError(f"{path} is neither a file nor a folder")
