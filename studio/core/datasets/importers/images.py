"""Decode image files with Pillow into one uint8 array of a single size and channel count.

Two passes: a cheap header probe (size, mode) that picks the common geometry and refuses
decompression bombs before any pixel is decoded, then decoding on a few threads (Pillow releases
the GIL while it decodes and resizes). Unreadable or truncated files are skipped and reported.
"""

from __future__ import annotations

import os
import warnings
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, UnidentifiedImageError

from studio.core.datasets.importers.progress import Progress
from studio.core.datasets.importers.result import Skips
from studio.core.errors import DataError

IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".bmp", ".gif", ".tif", ".tiff", ".webp", ".ppm", ".pgm",
                            ".pbm", ".pnm"})
MAX_SIDE = 224  # the default size is the most common one, scaled down to fit in MAX_SIDE × MAX_SIDE
MAX_PIXELS = Image.MAX_IMAGE_PIXELS or 89_478_485  # Pillow's decompression-bomb threshold: refused above
GREY_MODES = frozenset({"1", "L", "LA", "La", "I", "I;16", "I;16B", "I;16L", "I;16N", "F"})
ALPHA_MODES = frozenset({"RGBA", "RGBa", "LA", "La", "PA"})


class SkipImage(Exception):
    """This file is left out; the message says why."""


@dataclass(frozen=True)
class Geometry:
    channels: int
    height: int
    width: int

    @property
    def shape(self) -> list[int]:
        return [self.channels, self.height, self.width]


def is_image_name(name: str) -> bool:
    return Path(name).suffix.lower() in IMAGE_SUFFIXES and not name.startswith(".")


def probe(path: str) -> tuple[int, int, str]:
    """(width, height, mode) from the file's header; SkipImage for non-images and bombs."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(path) as img:
                w, h = img.size
                mode = img.mode
                if mode == "P" and "transparency" in img.info:
                    mode = "PA"
    except Image.DecompressionBombError:
        raise SkipImage("refused: its pixel count is absurd (a decompression bomb?)") from None
    except UnidentifiedImageError:
        raise SkipImage("not a readable image") from None
    except (OSError, ValueError, SyntaxError) as err:
        raise SkipImage(f"cannot be read ({err})") from None
    if w * h > MAX_PIXELS:
        raise SkipImage(f"refused: {w}×{h} pixels is more than the {MAX_PIXELS:,} pixel limit "
                        "(a decompression bomb?)")
    if w < 1 or h < 1:
        raise SkipImage("has no pixels")
    return w, h, mode


def choose_geometry(sizes: Counter, modes: Counter, size: tuple[int, int] | None = None,
                    channels: int | None = None) -> Geometry:
    """The most common size (scaled to fit MAX_SIDE) and 1 channel if every image is grey, else 3;
    ``size`` (height, width) and ``channels`` override."""
    if channels is None:
        channels = 1 if set(modes) <= GREY_MODES else 3
    if channels not in (1, 3):
        raise DataError(f"images can have 1 (grey) or 3 (colour) channels, not {channels}")
    if size is None:
        (w, h), _ = sizes.most_common(1)[0]
        scale = min(1.0, MAX_SIDE / max(w, h))
        size = (max(1, round(h * scale)), max(1, round(w * scale)))
    h, w = size
    if not (1 <= h <= 4096 and 1 <= w <= 4096):
        raise DataError(f"an image size of {h}×{w} is out of range (1 to 4096 pixels a side)")
    return Geometry(channels, int(h), int(w))


def _to_mode(img: Image.Image, channels: int) -> Image.Image:
    mode = img.mode
    if mode in ("I", "I;16", "I;16B", "I;16L", "I;16N", "F"):
        arr = np.asarray(img, dtype=np.float32)
        top = 65535.0 if mode.startswith("I;16") or (mode == "I" and arr.max(initial=0) > 255) else 255.0
        if mode == "F":
            top = max(float(arr.max(initial=0)), 1e-12) if arr.max(initial=0) > 1 else 1.0
        img = Image.fromarray(np.clip(np.rint(arr * (255.0 / top)), 0, 255).astype(np.uint8), "L")
    elif mode in ALPHA_MODES or (mode == "P" and "transparency" in img.info):
        rgba = img.convert("RGBA")
        background = Image.new("RGBA", rgba.size, (255, 255, 255, 255))  # transparent shows as white
        img = Image.alpha_composite(background, rgba)
    return img.convert("L" if channels == 1 else "RGB")


def load_image(path: str, geometry: Geometry) -> np.ndarray:
    """The image at ``path`` as uint8 (C, H, W) of ``geometry``; SkipImage when it cannot be decoded."""
    w, h = geometry.width, geometry.height
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(path) as img:
                if img.width * img.height > MAX_PIXELS:
                    raise SkipImage(f"refused: {img.width}×{img.height} pixels is more than the "
                                    f"{MAX_PIXELS:,} pixel limit (a decompression bomb?)")
                if img.format == "JPEG":
                    img.draft("L" if geometry.channels == 1 else "RGB", (w, h))  # decode at reduced scale
                img.load()
                out = _to_mode(img, geometry.channels)
                if out.size != (w, h):
                    out = out.resize((w, h), Image.Resampling.BILINEAR)
                arr = np.asarray(out, dtype=np.uint8)
    except SkipImage:
        raise
    except Image.DecompressionBombError:
        raise SkipImage("refused: its pixel count is absurd (a decompression bomb?)") from None
    except UnidentifiedImageError:
        raise SkipImage("not a readable image") from None
    except (OSError, ValueError, SyntaxError, EOFError) as err:
        text = str(err) or type(err).__name__
        raise SkipImage("truncated" if "truncated" in text else f"corrupt ({text})") from None
    return arr[None] if arr.ndim == 2 else arr.transpose(2, 0, 1)


def _workers() -> int:
    return max(1, min(4, os.cpu_count() or 1))


def _catch(fn, *args):
    try:
        return fn(*args), None
    except SkipImage as err:
        return None, str(err)


def decode_images(paths: Sequence[str], names: Sequence[str], progress: Progress,
                  size: tuple[int, int] | None = None, channels: int | None = None,
                  ) -> tuple[np.ndarray, np.ndarray, Skips, Geometry]:
    """Decode ``paths`` (reported by ``names``) into (x uint8 (M, C, H, W), indices of the M kept
    paths, skips, geometry)."""
    skips = Skips()
    if not paths:
        return np.zeros((0, 1, 1, 1), np.uint8), np.zeros(0, np.int64), skips, Geometry(1, 1, 1)
    pool = ThreadPoolExecutor(_workers())
    try:
        progress.stage("reading image headers", len(paths))
        probed: list[int] = []
        sizes: Counter = Counter()
        modes: Counter = Counter()
        for i, (info, why) in enumerate(pool.map(_catch, [probe] * len(paths), paths)):
            if why:
                skips.add(names[i], why)
            else:
                w, h, mode = info
                sizes[(w, h)] += 1
                modes[mode] += 1
                probed.append(i)
            progress.advance()
        if not probed:
            return np.zeros((0, 1, 1, 1), np.uint8), np.zeros(0, np.int64), skips, Geometry(1, 1, 1)
        geometry = choose_geometry(sizes, modes, size, channels)
        progress.stage(f"decoding {len(probed):,} images to {geometry.channels}×{geometry.height}×{geometry.width}",
                       len(probed))
        x = np.empty((len(probed), *geometry.shape), np.uint8)
        kept = np.empty(len(probed), np.int64)
        n = 0
        todo = [paths[i] for i in probed]
        for i, (arr, why) in zip(probed, pool.map(_catch, [load_image] * len(todo), todo,
                                                  [geometry] * len(todo)), strict=True):
            if why:
                skips.add(names[i], why)
            else:
                x[n] = arr
                kept[n] = i
                n += 1
            progress.advance()
        return (x if n == len(x) else x[:n].copy()), kept[:n], skips, geometry
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
