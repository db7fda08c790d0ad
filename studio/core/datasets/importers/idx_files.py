"""IDX files as MNIST ships them (``train-images-idx3-ubyte[.gz]`` and friends), found by name in a
folder: MNIST, Fashion-MNIST, KMNIST, EMNIST and torchvision's raw folders all use this layout."""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np

from studio.core.datasets.idx import read_idx
from studio.core.datasets.importers.options import ImportOptions
from studio.core.datasets.importers.progress import Progress
from studio.core.datasets.importers.result import (
    TEST,
    TRAIN,
    VAL,
    Imported,
    encode_labels,
    label_column,
    squeeze_to_nchw,
    to_uint8,
)
from studio.core.datasets.known import KNOWN, recognise_idx
from studio.core.errors import DataError

IDX_NAME = re.compile(r"idx\d-ubyte(\.gz)?$|\.idx\d?(\.gz)?$", re.IGNORECASE)
SPLIT_TOKENS = (("t10k", TEST), ("test", TEST), ("train", TRAIN), ("val", VAL))


def is_idx_name(name: str) -> bool:
    return bool(IDX_NAME.search(name))


def _role(name: str) -> tuple[str, str, int] | None:
    """(group, 'images'|'labels', split) from a file name; None when the name does not say."""
    low = name.lower()
    kind = "images" if ("idx3" in low or "image" in low) else "labels" if ("idx1" in low or "label" in low) else ""
    if not kind:
        return None
    found = [(low.rfind(token), token, code) for token, code in SPLIT_TOKENS if token in low]
    if not found:
        return None
    at, _, code = max(found)  # the split word nearest the end ("contest-train-…" is train)
    return low[:at], kind, code


def find_idx_files(folder: Path, depth: int = 3) -> list[Path]:
    """IDX files under ``folder`` (a few levels deep), raw files preferred over their .gz twins."""
    found: dict[str, Path] = {}
    base = len(folder.parts)
    for dirpath, dirnames, filenames in os.walk(folder):
        if len(Path(dirpath).parts) - base >= depth:
            dirnames[:] = []
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if is_idx_name(name) and not name.startswith("."):
                path = Path(dirpath) / name
                stem = str(path)[:-3] if name.lower().endswith(".gz") else str(path)
                if stem not in found or not name.lower().endswith(".gz"):
                    found[stem] = path
    return sorted(found.values())


def pair_idx(files: list[Path], source: str) -> tuple[dict[int, tuple[Path, Path]], list[str]]:
    """{split: (images, labels)} of one set of IDX files, and the catalog-recognition hints (names)."""
    groups: dict[str, dict[tuple[str, int], Path]] = {}
    for f in files:
        role = _role(f.name)
        if role:
            group, kind, code = role
            groups.setdefault(group, {})[(kind, code)] = f
    if not groups:
        raise DataError(f"{source}: IDX files were found but their names do not say which hold images and labels "
                        "(expected names like train-images-idx3-ubyte and train-labels-idx1-ubyte)")
    if len(groups) > 1:
        preferred = [g for g in groups if "balanced" in g]
        if len(preferred) != 1:
            names = ", ".join(sorted(g.strip("-_") or "(unnamed)" for g in groups))
            raise DataError(f"{source} holds several sets of IDX files ({names}); drop a folder with one set")
        groups = {preferred[0]: groups[preferred[0]]}
    (group, members), = groups.items()
    pairs: dict[int, tuple[Path, Path]] = {}
    for (kind, code), path in members.items():
        if kind != "images":
            continue
        labels = members.get(("labels", code))
        if labels is None:
            raise DataError(f"{source}: {path.name} has no matching labels file (…-labels-idx1-ubyte)")
        pairs[code] = (path, labels)
    if TRAIN not in pairs:
        if not pairs:
            raise DataError(f"{source}: IDX label files were found but no images files (…-images-idx3-ubyte)")
        only = next(iter(pairs))
        pairs = {TRAIN: pairs.pop(only), **pairs}
    hints = [p for path in files for p in path.parts[-3:]]
    return pairs, hints


def import_idx(files: list[Path], source: str, options: ImportOptions, progress: Progress) -> Imported:
    pairs, hints = pair_idx(files, source)
    catalog = recognise_idx(hints)
    progress.stage(f"reading IDX files from {source}", 2 * len(pairs))
    xs: list[np.ndarray] = []
    ys: list[np.ndarray] = []
    codes: list[np.ndarray] = []
    notes: list[str] = []
    for code, (images_path, labels_path) in sorted(pairs.items()):
        x = read_idx(images_path)
        progress.advance()
        y = read_idx(labels_path)
        progress.advance()
        if x.ndim not in (3, 4):
            raise DataError(f"{images_path.name} holds an array of shape {list(x.shape)}, not images (N, H, W)")
        if len(x) != len(y):
            raise DataError(f"{images_path.name} holds {len(x)} images but {labels_path.name} holds {len(y)} labels")
        y = label_column(y, labels_path.name)
        if xs and x.shape[1:] != xs[0].shape[1:]:
            raise DataError(f"{images_path.name} holds {list(x.shape[1:])} images, unlike the other split's "
                            f"{list(xs[0].shape[1:])}")
        xs.append(x)
        ys.append(y)
        codes.append(np.full(len(y), code, np.uint8))
    if catalog and not _matches(KNOWN[catalog], xs, codes):
        catalog = None  # a partial or altered set is imported as it is, not as the classic dataset
    x = np.concatenate(xs)
    if catalog == "emnist_balanced":
        x = np.ascontiguousarray(x.transpose(0, 2, 1))  # EMNIST stores images transposed
    known = KNOWN[catalog].classes if catalog else None
    y, classes, note = encode_labels(np.concatenate(ys), known=known, what="labels")
    if note:
        notes.append(note)
    images = np.ascontiguousarray(squeeze_to_nchw(to_uint8(x, source, notes), source, options.shape))
    c, h, w = images.shape[1:]
    title = KNOWN[catalog].title if catalog else "IDX files"
    return Imported(images, y, np.concatenate(codes), classes, notes=notes, catalog=catalog,
                    description=f"{title} from {source}: {c}×{h}×{w} images, {len(classes)} classes")


def _matches(known, xs: list[np.ndarray], codes: list[np.ndarray]) -> bool:
    """Whether train and test have exactly the classic dataset's sizes and image shape."""
    sizes = {int(c[0]): len(c) for c in codes if len(c)}
    return (sizes.get(TRAIN), sizes.get(TEST)) == known.sizes and tuple(xs[0].shape[1:]) == known.shape[1:]
