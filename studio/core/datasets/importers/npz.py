"""NumPy files: an .npz with images and labels (x/y, images/labels, x_train/y_train/x_test/y_test…),
or a folder of .npy files with those names. Pickled objects are never loaded."""

from __future__ import annotations

import zipfile
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np

from studio.core.datasets.importers.options import ChoiceNeeded, ImportOptions
from studio.core.datasets.importers.progress import Progress
from studio.core.datasets.importers.result import (
    SPLITS,
    Imported,
    encode_labels,
    label_column,
    squeeze_to_nchw,
    to_uint8,
)
from studio.core.errors import DataError

X_NAMES = ("x", "images", "image", "imgs", "data", "features", "inputs", "input", "pixels")
Y_NAMES = ("y", "labels", "label", "targets", "target", "class", "classes_idx")
CLASS_NAME_KEYS = ("classes", "class_names", "label_names", "names")
SPLIT_ALIASES = {"train": ("train", "training"), "val": ("val", "valid", "validation"), "test": ("test", "testing")}

Loader = Callable[[], np.ndarray]


def _split_keys(keys: dict[str, str], split: str) -> tuple[str, str] | None:
    """The (x, y) keys of one split, e.g. x_train/y_train or train_images/train_labels."""
    for s in SPLIT_ALIASES[split]:
        xs = [f"x_{s}", f"{s}_x", f"x{s}", f"{s}_images", f"images_{s}", f"{s}_data", f"{s}_imgs"]
        ys = [f"y_{s}", f"{s}_y", f"y{s}", f"{s}_labels", f"labels_{s}", f"{s}_targets", f"{s}_label"]
        x = next((keys[k] for k in xs if k in keys), None)
        y = next((keys[k] for k in ys if k in keys), None)
        if x and y:
            return x, y
    return None


def choose_arrays(names: list[str], shapes: dict[str, tuple[int, ...]], options: ImportOptions,
                  source: str) -> dict[int, tuple[str, str]]:
    """{split code: (x key, y key)} for the arrays in a file; ChoiceNeeded when it cannot tell."""
    keys = {n.lower(): n for n in names}
    if options.x_key or options.y_key:
        for key in (options.x_key, options.y_key):
            if key is not None and key not in names:
                raise DataError(f"{source} has no array {key!r}; it holds {', '.join(names)}")
        if not (options.x_key and options.y_key):
            missing = "y_key" if options.x_key else "x_key"
            raise ChoiceNeeded(f"{source}: choose the {'labels' if missing == 'y_key' else 'images'} array too",
                               missing, names)
        return {0: (options.x_key, options.y_key)}
    splits = {code: pair for code, split in enumerate(SPLITS) if (pair := _split_keys(keys, split))}
    if 0 in splits:
        return splits
    x = next((keys[k] for k in X_NAMES if k in keys), None)
    y = next((keys[k] for k in Y_NAMES if k in keys), None)
    if x and y:
        return {0: (x, y)}
    data = [n for n in names if n.lower() not in CLASS_NAME_KEYS]
    if len(data) == 2:
        a, b = data
        if len(shapes[a]) >= 2 and len(shapes[b]) == 1:
            return {0: (a, b)}
        if len(shapes[b]) >= 2 and len(shapes[a]) == 1:
            return {0: (b, a)}
    if not names:
        raise DataError(f"{source} holds no arrays")
    if x is None:
        raise ChoiceNeeded(f"{source} holds arrays named {', '.join(names)}; choose which one holds the images "
                           "(--x-key NAME) and which the labels (--y-key NAME)", "x_key", names)
    raise ChoiceNeeded(f"{source} holds arrays named {', '.join(names)}; choose which one holds the labels "
                       "(--y-key NAME)", "y_key", names)


def _load(get: Loader, key: str, source: str) -> np.ndarray:
    try:
        array = np.asarray(get())
        if array.ndim == 0:  # a single number (np.savez of a scalar): not one value per sample
            raise DataError(f"{source}: the array {key!r} is a single value, not one per sample")
        return array
    except ValueError as err:
        if "pickle" in str(err).lower():
            raise DataError(f"{source}: the array {key!r} holds Python objects; Studio reads only plain numeric "
                            "arrays (save with np.savez, without object arrays)") from None
        raise DataError(f"{source}: the array {key!r} cannot be read ({err})") from None
    except (OSError, EOFError, zipfile.BadZipFile) as err:
        raise DataError(f"{source}: the array {key!r} cannot be read ({err})") from None


def _class_names(arrays: dict[str, Loader], source: str) -> list[str] | None:
    for name, get in arrays.items():
        if name.lower() in CLASS_NAME_KEYS:
            try:
                values = np.asarray(get())
            except (ValueError, OSError):
                return None
            if values.ndim == 1 and values.dtype.kind in "US":
                return [str(v) for v in values]
    return None


def import_arrays(arrays: dict[str, Loader], shapes: dict[str, tuple[int, ...]], source: str,
                  options: ImportOptions, progress: Progress) -> Imported:
    """Images and labels from named arrays (an .npz or a folder of .npy files)."""
    pairs = choose_arrays(list(arrays), shapes, options, source)
    progress.stage(f"reading {source}", len(pairs))
    xs: list[np.ndarray] = []
    ys: list[np.ndarray] = []
    codes: list[np.ndarray] = []
    notes: list[str] = []
    for code, (xk, yk) in sorted(pairs.items()):
        x, y = _load(arrays[xk], xk, source), _load(arrays[yk], yk, source)
        if len(x) == 0:
            raise DataError(f"{source}: {xk} holds no samples")
        if len(x) != len(y):
            raise DataError(f"{source}: {xk} has {len(x)} samples but {yk} has {len(y)} labels; they must match")
        y = label_column(y, f"{source}: {yk}")
        if xs and x.shape[1:] != xs[0].shape[1:]:
            raise DataError(f"{source}: {xk} has images of shape {list(x.shape[1:])} but the first split has "
                            f"{list(xs[0].shape[1:])}")
        xs.append(x)
        ys.append(y)
        codes.append(np.full(len(y), code, np.uint8))
        progress.advance()
    x = np.concatenate(xs)
    names = _class_names(arrays, source)
    y, classes, note = encode_labels(np.concatenate(ys), known=names, what="labels")
    if note:
        notes.append(note)
    images = np.ascontiguousarray(squeeze_to_nchw(to_uint8(x, source, notes), source, options.shape))
    c, h, w = images.shape[1:]
    return Imported(images, y, np.concatenate(codes), classes, notes=notes,
                    description=f"NumPy arrays from {source}: {c}×{h}×{w} images, {len(classes)} classes")


def import_npz(path: Path, options: ImportOptions, progress: Progress) -> Imported:
    try:
        npz = np.load(path, allow_pickle=False)
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as err:
        raise DataError(f"{path.name} is not a readable .npz file ({err})") from None
    if not isinstance(npz, np.lib.npyio.NpzFile):
        raise DataError(f"{path.name} holds a single array, not images and labels; save both with np.savez")
    with npz:
        shapes = {}
        for name in npz.files:
            shapes[name] = _npz_shape(npz, name)
        arrays: dict[str, Loader] = {name: partial(npz.__getitem__, name) for name in npz.files}
        return import_arrays(arrays, shapes, path.name, options, progress)


def _npz_shape(npz: np.lib.npyio.NpzFile, name: str) -> tuple[int, ...]:
    """An array's shape from its .npy header, without reading the data."""
    if npz.zip is None:  # closed
        return ()
    try:
        with npz.zip.open(name + ".npy") as fh:
            version = np.lib.format.read_magic(fh)
            if version == (1, 0):
                return tuple(np.lib.format.read_array_header_1_0(fh)[0])
            return tuple(np.lib.format.read_array_header_2_0(fh)[0])
    except Exception:  # noqa: BLE001 - fall back to nothing: the shape is only a hint
        return ()


def import_npy_folder(folder: Path, files: list[Path], options: ImportOptions, progress: Progress) -> Imported:
    """A folder holding x.npy and y.npy (or x_train.npy, y_train.npy, …)."""
    arrays: dict[str, Loader] = {}
    shapes: dict[str, tuple[int, ...]] = {}
    for f in files:
        try:
            arr = np.load(f, mmap_mode="r", allow_pickle=False)
        except (OSError, ValueError, EOFError) as err:
            raise DataError(f"{f.name} is not a readable .npy file ({err})") from None
        shapes[f.stem] = tuple(arr.shape)
        arrays[f.stem] = partial(np.asarray, arr)
    return import_arrays(arrays, shapes, folder.name, options, progress)
