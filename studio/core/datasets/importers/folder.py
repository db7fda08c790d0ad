"""Folders of images: one subfolder per class (Keras flow_from_directory / torchvision ImageFolder),
or train/ and test/ (or val/) folders of that layout, which become the splits."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from studio.core.datasets.importers.images import IMAGE_SUFFIXES, decode_images, is_image_name
from studio.core.datasets.importers.options import ImportOptions
from studio.core.datasets.importers.progress import Progress
from studio.core.datasets.importers.result import TEST, TRAIN, VAL, Imported, encode_labels
from studio.core.errors import DataError

SPLIT_DIRS = {"train": TRAIN, "training": TRAIN, "val": VAL, "valid": VAL, "validation": VAL,
              "test": TEST, "testing": TEST}
IGNORED_DIRS = frozenset({"__MACOSX", "__pycache__"})


def visible(path: Path) -> list[Path]:
    """Entries of a folder that a person put there (no hidden files, no macOS archive debris)."""
    try:
        entries = sorted(os.scandir(path), key=lambda e: e.name)
    except OSError as err:
        raise DataError(f"cannot read the folder {path}: {err.strerror}") from None
    return [Path(e.path) for e in entries if not e.name.startswith(".") and e.name not in IGNORED_DIRS]


def unwrap(root: Path) -> Path:
    """Descend through wrapper folders that hold exactly one folder and nothing else (as zips often do),
    but not into a folder of images (that is a single class)."""
    for _ in range(8):
        entries = visible(root)
        if (len(entries) == 1 and entries[0].is_dir() and not entries[0].is_symlink()
                and not any(is_image_name(p.name) for p in visible(entries[0]) if p.is_file())):
            root = entries[0]
        else:
            break
    return root


def split_dirs(root: Path) -> dict[int, list[Path]]:
    """{split code: folders} when ``root`` holds train/ plus test/ or val/ folders; else {}."""
    found: dict[int, list[Path]] = {}
    for entry in visible(root):
        code = SPLIT_DIRS.get(entry.name.lower())
        if code is not None and entry.is_dir():
            found.setdefault(code, []).append(entry)
    return found if TRAIN in found and len(found) > 1 else {}


def _images_under(folder: Path) -> tuple[list[str], int]:
    """Image files anywhere under ``folder`` (sorted; symlinks not followed) and how many other files."""
    images, others = [], 0
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in IGNORED_DIRS)
        for name in sorted(filenames):
            if name.startswith("."):
                continue
            if is_image_name(name):
                images.append(os.path.join(dirpath, name))
            else:
                others += 1
    return images, others


def looks_like_image_folder(root: Path) -> bool:
    """True when ``root`` (or its train/ folder) has class subfolders holding at least one image."""
    splits = split_dirs(root)
    base = splits[TRAIN][0] if splits else root
    for sub in visible(base):
        if sub.is_dir():
            for _dirpath, _dirs, files in os.walk(sub):
                if any(is_image_name(f) for f in files):
                    return True
    return False


def scan(root: Path) -> tuple[list[str], list[str], list[int], list[str]]:
    """(image paths, class names, split codes, notes) of a class-folder layout, with or without splits."""
    splits = split_dirs(root) or {TRAIN: [root]}
    paths: list[str] = []
    labels: list[str] = []
    codes: list[int] = []
    notes: list[str] = []
    loose = others = 0
    for code, folders in sorted(splits.items()):
        for folder in folders:
            for entry in visible(folder):
                if entry.is_dir() and not entry.is_symlink():
                    images, n_other = _images_under(entry)
                    others += n_other
                    paths += images
                    labels += [entry.name] * len(images)
                    codes += [code] * len(images)
                elif is_image_name(entry.name):
                    loose += 1
                else:
                    others += 1
    if loose:
        notes.append(f"{_count(loose, 'image')} lying directly in the top folder (outside any class folder) "
                     "left out")
    if others:
        notes.append(f"{_count(others, 'file')} that {'is' if others == 1 else 'are'} not an image "
                     f"({', '.join(sorted(IMAGE_SUFFIXES))}) left out")
    if not paths:
        if loose:
            raise DataError(
                f"{root} holds {loose} images but no class folders; put each class's images in a subfolder "
                f"named after the class (e.g. {root.name}/cats/, {root.name}/dogs/)")
        if not visible(root):
            raise DataError(f"the folder {root} is empty")
        raise DataError(f"no images were found in {root} (Studio reads {', '.join(sorted(IMAGE_SUFFIXES))} "
                        "files in one subfolder per class)")
    return paths, labels, codes, notes


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def import_folder(root: Path, options: ImportOptions, progress: Progress) -> Imported:
    root = unwrap(Path(root))
    progress.stage(f"listing images in {root.name}")
    paths, labels, codes, notes = scan(root)
    prefix = len(str(root)) + 1
    names = [p[prefix:] for p in paths]  # relative to the dataset's folder, for skip reports
    x, kept, skips, geometry = decode_images(paths, names, progress, options.size, options.channels)
    kept_labels = np.asarray(labels, dtype=object)[kept] if len(kept) else np.zeros(0, dtype=object)
    if len(kept) == 0:
        raise DataError(f"none of the {len(paths)} images in {root} could be read"
                        + (f" (e.g. {skips.examples[0]})" if skips.examples else ""))
    y, classes, _ = encode_labels(kept_labels.astype(str))  # folder names: sorted, like ImageFolder
    empty = sorted(set(labels) - set(classes))
    if empty:
        notes.append(f"class folders without readable images were left out: {', '.join(empty[:5])}")
    split = np.asarray(codes, dtype=np.uint8)[kept]
    n_splits = len({int(c) for c in np.unique(split)})
    what = f"a folder of images in {len(classes)} class folders" + (
        " with its own train/test split" if n_splits > 1 else "")
    return Imported(x, y, split, classes, skips, notes,
                    description=f"{what}, {geometry.channels}×{geometry.height}×{geometry.width}")
