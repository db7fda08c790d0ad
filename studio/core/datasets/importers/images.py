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
CHUNK = 64  # images decoded per task
THREAD_PIXELS = 64 * 64 * 16  # decode on several threads when images average at least this many pixels
KEEP_BYTES = 256 << 20  # small images decoded while probing are kept up to this much memory
MAX_SIDE = 224  # the default size is the most common one, scaled down to fit in MAX_SIDE × MAX_SIDE
MAX_PIXELS = Image.MAX_IMAGE_PIXELS or 89_478_485  # Pillow's decompression-bomb threshold: refused above
MAX_SIDE_PIXELS = 65_535  # the longest side read (a JPEG's own limit); longer is refused from the header
GREY_MODES = frozenset({"1", "L", "LA", "La", "I", "I;16", "I;16B", "I;16L", "I;16N", "F"})
ALPHA_MODES = frozenset({"RGBA", "RGBa", "LA", "La", "PA"})
# a big image is first reduced by a whole factor (box average) to within this many times the target size, then
# resampled: resampling straight from 80,000,000 pixels to 28 needs a table of weights as large as the image × 8
REDUCING_GAP = 3.0


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


def _describe_error(err: Exception) -> str:
    if isinstance(err, Image.DecompressionBombError):
        return "refused: its pixel count is absurd (a decompression bomb?)"
    if isinstance(err, UnidentifiedImageError):
        return "not a readable image"
    text = str(err) or type(err).__name__
    return "truncated" if "truncated" in text else f"corrupt ({text})"


def _check_size(w: int, h: int) -> None:
    if max(w, h) > MAX_SIDE_PIXELS:  # a PNG decoder holds whole rows twice: an 80,000,000 × 1 image took 1.6 GB
        raise SkipImage(f"refused: {w:,}×{h:,} pixels has a side longer than {MAX_SIDE_PIXELS:,} pixels")
    if w * h > MAX_PIXELS:
        raise SkipImage(f"refused: {w}×{h} pixels is more than the {MAX_PIXELS:,} pixel limit "
                        "(a decompression bomb?)")
    if w < 1 or h < 1:
        raise SkipImage("has no pixels")


def probe(path: str, keep_below: int = 0) -> tuple[int, int, str, Image.Image | None]:
    """(width, height, mode, the decoded image or None) from the file's header; the image is decoded
    now, while the file is open anyway, when it has fewer than ``keep_below`` pixels. SkipImage for
    non-images, bombs and (when decoded) truncated files."""
    try:
        img = Image.open(path)
    except (OSError, ValueError, SyntaxError, EOFError, Image.DecompressionBombError) as err:
        raise SkipImage(_describe_error(err)) from None
    keep = False
    try:
        w, h = img.size
        mode = img.mode
        if mode == "P" and "transparency" in img.info:
            mode = "PA"
        _check_size(w, h)
        if w * h < keep_below:
            img.load()
            if getattr(img, "fp", None) is not None:  # multi-frame files stay open: keep a copy instead
                return w, h, mode, img.copy()
            keep = True
            return w, h, mode, img
        return w, h, mode, None
    except (OSError, ValueError, SyntaxError, EOFError) as err:
        raise SkipImage(_describe_error(err)) from None
    finally:
        if not keep:
            img.close()


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
    target = "L" if channels == 1 else "RGB"
    return img if img.mode == target else img.convert(target)


def _reduced(img: Image.Image, geometry: Geometry) -> Image.Image:
    """A decoded image many times bigger than ``geometry`` reduced by whole factors (a box average, in its own
    mode, before any mode conversion copies it) to within ``REDUCING_GAP`` times the target size."""
    fx = img.width // (geometry.width * int(REDUCING_GAP))
    fy = img.height // (geometry.height * int(REDUCING_GAP))
    if fx < 2 and fy < 2:
        return img
    try:
        return img.reduce((max(1, fx), max(1, fy)))
    except ValueError:  # a mode reduce() does not take (palette, 1-bit): converted first, as before
        return img


def to_array(img: Image.Image, geometry: Geometry) -> np.ndarray:
    """A decoded image as uint8 (C, H, W) of ``geometry``."""
    out = _to_mode(_reduced(img, geometry), geometry.channels)
    if out.size != (geometry.width, geometry.height):
        out = out.resize((geometry.width, geometry.height), Image.Resampling.BILINEAR, reducing_gap=REDUCING_GAP)
    arr = np.asarray(out, dtype=np.uint8)
    return arr[None] if arr.ndim == 2 else arr.transpose(2, 0, 1)


def load_image(path: str, geometry: Geometry) -> np.ndarray:
    """The image at ``path`` as uint8 (C, H, W) of ``geometry``; SkipImage when it cannot be decoded."""
    try:
        with Image.open(path) as img:
            _check_size(img.width, img.height)
            if img.format == "JPEG":  # decode at a reduced scale when that is enough
                img.draft("L" if geometry.channels == 1 else "RGB", (geometry.width, geometry.height))
            img.load()
            return to_array(img, geometry)
    except (OSError, ValueError, SyntaxError, EOFError, Image.DecompressionBombError) as err:
        raise SkipImage(_describe_error(err)) from None


def _workers() -> int:
    return max(1, min(4, os.cpu_count() or 1))


def _decode_chunk(sources: Sequence[str | Image.Image], slots: range, geometry: Geometry,
                  x: np.ndarray) -> list[str | None]:
    """Decode ``sources`` (paths, or images decoded while probing) into ``x[slots]``; the reason for
    each that failed, else None."""
    out: list[str | None] = []
    for source, slot in zip(sources, slots, strict=True):
        try:
            x[slot] = load_image(source, geometry) if isinstance(source, str) else to_array(source, geometry)
            out.append(None)
        except SkipImage as err:
            out.append(str(err))
    return out


def decode_images(paths: Sequence[str], names: Sequence[str], progress: Progress,
                  size: tuple[int, int] | None = None, channels: int | None = None,
                  ) -> tuple[np.ndarray, np.ndarray, Skips, Geometry]:
    """Decode ``paths`` (reported by ``names``) into (x uint8 (M, C, H, W), indices of the M kept
    paths, skips, geometry).

    Headers are probed one after the other; small images are decoded right then (one open per file)
    and kept in memory up to KEEP_BYTES. The rest decode in chunks, on a few threads when the images
    are big enough for Pillow's decoding (which releases the GIL) to dominate; small images decode
    faster on one thread, where no time is lost handing work between threads.
    """
    skips = Skips()
    empty = np.zeros((0, 1, 1, 1), np.uint8), np.zeros(0, np.int64), skips, Geometry(1, 1, 1)
    if not paths:
        return empty
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        progress.stage("reading image headers", len(paths))
        probed: list[int] = []
        sources: list[str | Image.Image] = []
        sizes: Counter = Counter()
        modes: Counter = Counter()
        kept_bytes = 0
        for i, path in enumerate(paths):
            try:
                w, h, mode, img = probe(path, THREAD_PIXELS if kept_bytes < KEEP_BYTES else 0)
            except SkipImage as err:
                skips.add(names[i], str(err))
            else:
                sizes[(w, h)] += 1
                modes[mode] += 1
                probed.append(i)
                sources.append(path if img is None else img)
                kept_bytes += 0 if img is None else w * h * len(img.getbands())
            progress.advance()
        if not probed:
            return empty
        geometry = choose_geometry(sizes, modes, size, channels)
        progress.stage(f"decoding {len(probed):,} images to {geometry.channels}×{geometry.height}×{geometry.width}",
                       len(probed))
        x = np.empty((len(probed), *geometry.shape), np.uint8)
        todo = sources
        chunks = [range(a, min(a + CHUNK, len(todo))) for a in range(0, len(todo), CHUNK)]
        mean_pixels = sum(w * h * n for (w, h), n in sizes.items()) / len(probed)
        threads = _workers() if mean_pixels >= THREAD_PIXELS else 1
        pool = ThreadPoolExecutor(threads) if threads > 1 else None
        try:
            if pool is not None:
                results = pool.map(lambda r: _decode_chunk(todo[r.start:r.stop], r, geometry, x), chunks)
            else:
                results = (_decode_chunk(todo[r.start:r.stop], r, geometry, x) for r in chunks)
            ok = np.ones(len(probed), bool)
            for r, reasons in zip(chunks, results, strict=True):
                for slot, why in zip(r, reasons, strict=True):
                    if why:
                        skips.add(names[probed[slot]], why)
                        ok[slot] = False
                    todo[slot] = ""  # let the decoded image go
                progress.advance(len(r))
        finally:
            if pool is not None:
                pool.shutdown(wait=True, cancel_futures=True)
    kept = np.asarray(probed, np.int64)
    if ok.all():
        return x, kept, skips, geometry
    return x[ok], kept[ok], skips, geometry
