"""What every importer returns: uint8 images, integer labels, the source's own splits and a skip report."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from studio.core.errors import DataError
from studio.core.vocab import SPLITS  # noqa: F401 - the split names, read here by the importers

TRAIN, VAL, TEST = 0, 1, 2
MAX_EXAMPLES = 5  # skipped files named in a report


@dataclass
class Skips:
    """Files left out of an import: how many, the first few named with the reason."""

    count: int = 0
    examples: list[str] = field(default_factory=list)

    def add(self, name: str, reason: str) -> None:
        self.count += 1
        if len(self.examples) < MAX_EXAMPLES:
            self.examples.append(f"{name}: {reason}")

    def merge(self, other: Skips) -> None:
        self.count += other.count
        self.examples = (self.examples + other.examples)[:MAX_EXAMPLES]


@dataclass
class Imported:
    """A dataset read from a source. ``split`` holds the source's own split of each sample
    (0 train, 1 val, 2 test); a source without splits is all train."""

    x: np.ndarray  # uint8 (N, C, H, W)
    y: np.ndarray  # int64 in 0..K-1
    split: np.ndarray  # uint8 (N,)
    classes: list[str]
    skips: Skips = field(default_factory=Skips)
    notes: list[str] = field(default_factory=list)
    catalog: str | None = None  # the classic dataset these files are, when recognised
    description: str = ""

    def validate(self, source: str) -> None:
        if self.x.dtype != np.uint8 or self.x.ndim != 4:
            raise DataError(f"{source}: images must be uint8 (N, C, H, W); got {self.x.dtype} {self.x.shape}")
        if len(self.x) == 0:
            raise DataError(f"{source}: no samples could be read" + _skip_hint(self.skips))
        if len(self.x) != len(self.y) or len(self.y) != len(self.split):
            raise DataError(f"{source}: {len(self.x)} images but {len(self.y)} labels")
        present = np.unique(self.y)
        if len(self.classes) < 2 or len(present) < 2:
            only = self.classes[int(present[0])] if len(present) else "?"
            raise DataError(
                f"{source}: only one class was found ({only!r}); a classifier needs at least two, "
                "e.g. one subfolder of images per class"
            )


def _skip_hint(skips: Skips) -> str:
    files = "file" if skips.count == 1 else "files"
    return f" ({skips.count} {files} skipped, e.g. {skips.examples[0]})" if skips.count else ""


def label_column(labels: np.ndarray, where: str) -> np.ndarray:
    """``labels`` as one value a sample (a column (N, 1) read as (N,)); DataError in ``where``'s words otherwise."""
    if labels.ndim == 2 and labels.shape[1] == 1:
        return labels[:, 0]
    if labels.ndim != 1:
        raise DataError(f"{where} holds labels of shape {list(labels.shape)}; labels are one value a sample, "
                        f"shape [{len(labels)}]")
    return labels


def encode_labels(raw: np.ndarray | list, known: tuple[str, ...] | list[str] | None = None,
                  what: str = "labels") -> tuple[np.ndarray, list[str], str | None]:
    """Map any labels to 0..K-1. Returns (y, class names, a note for the person or None).

    Integer labels already 0..K-1 keep their values (named by ``known`` when it fits); other
    numbers and text are sorted and numbered, and the note says so.
    """
    arr = np.asarray(raw)
    if arr.ndim != 1:
        arr = arr.reshape(len(arr), -1)
        if arr.shape[1] != 1:
            raise DataError(f"{what} must be one value per sample; got shape {np.asarray(raw).shape}")
        arr = arr[:, 0]
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)):
            raise DataError(f"{what} contain NaN or infinite values")
        if np.all(arr == np.round(arr)):
            arr = arr.astype(np.int64)
    if arr.dtype.kind in "iub":
        arr = arr.astype(np.int64)
        values = np.unique(arr)
        k = len(values)
        if values[0] == 0 and values[-1] == k - 1:
            names = list(known) if known is not None and len(known) >= k else [str(v) for v in values]
            return arr, names, None
        y = np.searchsorted(values, arr).astype(np.int64)
        note = (f"{what} were {_describe_values(values)} ({k} distinct values), not 0..{k - 1}; "
                f"they were numbered 0..{k - 1} in sorted order")
        return y, [str(v) for v in values], note
    text = arr.astype(str)
    values, y = np.unique(text, return_inverse=True)
    note = f"{what} are names; {len(values)} classes were numbered 0..{len(values) - 1} in sorted order"
    return y.astype(np.int64), [str(v) for v in values], note


def _describe_values(values: np.ndarray) -> str:
    if len(values) <= 6:
        return ", ".join(str(v) for v in values)
    return f"{values[0]}..{values[-1]}"


def squeeze_to_nchw(x: np.ndarray, source: str, shape: tuple[int, ...] | None = None) -> np.ndarray:
    """Images in any common layout as (N, C, H, W): (N, H, W), (N, H, W, C), (N, C, H, W) or flat
    (N, D) with ``shape`` or a square D (grey) or 3·square D (colour, channels last)."""
    if x.ndim < 2:
        raise DataError(f"{source}: images must have at least 2 dimensions (samples × pixels); got {x.shape}")
    n = len(x)
    if shape is not None:
        want = int(np.prod(shape))
        if int(np.prod(x.shape[1:])) != want:
            raise DataError(f"{source}: each sample has {int(np.prod(x.shape[1:]))} values, "
                            f"which does not fit the shape {list(shape)} ({want} values)")
        if len(shape) == 2:
            return x.reshape(n, 1, *shape)
        if len(shape) == 3 and shape[0] in (1, 3, 4):
            return x.reshape(n, *shape)[:, :3]
        if len(shape) == 3 and shape[2] in (1, 3, 4):
            return x.reshape(n, *shape).transpose(0, 3, 1, 2)[:, :3]
        raise DataError(f"{source}: the shape {list(shape)} must be H,W or C,H,W or H,W,C with 1, 3 or 4 channels")
    if x.ndim == 2:
        d = x.shape[1]
        side = int(round(d ** 0.5))
        if side * side == d:
            return x.reshape(n, 1, side, side)
        side = int(round((d / 3) ** 0.5))
        if d % 3 == 0 and side * side * 3 == d:
            return x.reshape(n, side, side, 3).transpose(0, 3, 1, 2)
        raise DataError(f"{source}: {d} pixel values per sample is not a square image; give the image shape "
                        "(e.g. --shape 1,28,28)")
    if x.ndim == 3:
        return x[:, None]
    if x.ndim == 4:
        if x.shape[1] in (1, 3, 4) and x.shape[-1] not in (1, 3, 4):
            return x[:, :3]
        if x.shape[-1] in (1, 3, 4):
            return x.transpose(0, 3, 1, 2)[:, :3]
        if x.shape[1] in (1, 3, 4):
            return x[:, :3]
    raise DataError(f"{source}: images of shape {list(x.shape[1:])} are not (H, W), (H, W, C) or (C, H, W) "
                    "with 1, 3 or 4 channels")


def to_uint8(x: np.ndarray, source: str, notes: list[str]) -> np.ndarray:
    """Pixel values as uint8: 0..255 kept, floats in 0..1 scaled by 255, other ranges rescaled (noted)."""
    if x.dtype == np.uint8:
        return x
    if x.dtype.kind not in "iuf" and x.dtype != np.bool_:
        raise DataError(f"{source}: pixel values must be numbers; got {x.dtype}")
    if x.size == 0:
        return x.astype(np.uint8)
    xf = x.astype(np.float32, copy=False)
    lo, hi = float(np.min(xf)), float(np.max(xf))
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise DataError(f"{source}: pixel values contain NaN or infinite numbers")
    if x.dtype.kind == "f" and lo >= 0 and hi <= 1:
        return np.rint(xf * 255).astype(np.uint8)
    if lo >= 0 and hi <= 255:
        return np.rint(xf).astype(np.uint8)
    notes.append(f"pixel values ranged {lo:g}..{hi:g}; they were rescaled to 0..255")
    return np.rint((xf - lo) * (255 / max(hi - lo, 1e-12))).astype(np.uint8)
