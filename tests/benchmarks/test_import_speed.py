"""Import speed (images/s): a folder of 10,000 small PNGs, and the full Fashion-MNIST IDX files
(Debian's dataset-fashion-mnist), each beside a baseline measured in the same run.

- PNG folder: Studio's importer (header probe, decode, checks, one uint8 array, cache write) against
  the plain sequential loop a script would write (Image.open → convert → np.asarray → np.stack),
  over the same files. Re-importing the same folder (a cache hit) is timed too.
- JPEG photos (400×300, scaled to 224×168): the same comparison where decoding dominates, so
  Studio's threads and JPEG draft mode (decoding at a reduced scale) count; the loop resizes too.
- IDX: the import (gunzip, parse, checks, cache write) against the least a script can do (gunzip and
  np.frombuffer past the header) on the same four files, and loading the cached entry back (what a
  training run does).

Run with ``pytest -m benchmark -s tests/benchmarks/test_import_speed.py``.
"""

from __future__ import annotations

import gzip
import os
import platform
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from studio.core.datasets import cache
from studio.core.datasets.importers.pipeline import import_path

N_PNG, CLASSES, SIDE = 10_000, 10, 32
N_JPEG = 1_000
DEBIAN = Path("/usr/share/datasets/fashion-mnist")

pytestmark = pytest.mark.benchmark


def _write_pngs(root: Path) -> list[Path]:
    rng = np.random.default_rng(0)
    paths = []
    for i in range(N_PNG):
        folder = root / f"class_{i % CLASSES}"
        folder.mkdir(parents=True, exist_ok=True)
        arr = rng.integers(0, 256, (SIDE, SIDE, 3), dtype=np.uint8)
        arr[:, :, i % 3] //= 2  # some structure; random pixels keep PNG decoding honest
        path = folder / f"{i:05d}.png"
        Image.fromarray(arr, "RGB").save(path)
        paths.append(path)
    return paths


def _sequential(paths: list[Path]) -> np.ndarray:
    return np.stack([np.asarray(Image.open(p).convert("RGB")) for p in paths])


def test_png_folder_import_speed(tmp_path):
    paths = _write_pngs(tmp_path / "pngs")
    _sequential(paths[:200])  # warm up the imports and the file cache alike
    t0 = time.perf_counter()
    baseline = _sequential(paths)
    t_base = time.perf_counter() - t0
    t0 = time.perf_counter()
    report = import_path(tmp_path / "pngs")
    t_import = time.perf_counter() - t0
    t0 = time.perf_counter()
    again = import_path(tmp_path / "pngs")
    t_again = time.perf_counter() - t0
    assert report["num_samples"] == N_PNG and report["shape"] == [3, SIDE, SIDE] and again["cached"]
    assert baseline.shape == (N_PNG, SIDE, SIDE, 3)
    print(f"\n{platform.processor() or platform.machine()}, {os.cpu_count()} cores; {N_PNG} PNGs {SIDE}×{SIDE} RGB")
    print(f"  Studio import (decode, checks, cache write): {t_import:6.2f} s  {N_PNG / t_import:8.0f} images/s")
    print(f"  baseline sequential PIL loop (decode only):  {t_base:6.2f} s  {N_PNG / t_base:8.0f} images/s")
    print(f"  ratio Studio / baseline: {t_base / t_import:.2f}×;  re-import (cache hit): {t_again * 1000:.0f} ms")


def test_jpeg_photo_folder_import_speed(tmp_path):
    rng = np.random.default_rng(1)
    base = rng.integers(0, 256, (300, 400, 3), dtype=np.uint8)
    paths = []
    for i in range(N_JPEG):
        folder = tmp_path / "photos" / f"class_{i % 4}"
        folder.mkdir(parents=True, exist_ok=True)
        paths.append(folder / f"{i:04d}.jpg")
        Image.fromarray(np.roll(base, 7 * i, axis=1), "RGB").save(paths[-1], quality=90)
    size = (224, 168)
    t0 = time.perf_counter()
    baseline = np.stack([np.asarray(Image.open(p).convert("RGB").resize(size, Image.Resampling.BILINEAR))
                         for p in paths])
    t_base = time.perf_counter() - t0
    t0 = time.perf_counter()
    report = import_path(tmp_path / "photos")
    t_import = time.perf_counter() - t0
    assert report["shape"] == [3, 168, 224] and baseline.shape == (N_JPEG, 168, 224, 3)
    print(f"\n{N_JPEG} JPEG photos 400×300 → 224×168 RGB")
    print(f"  Studio import (threads, JPEG draft, cache write): {t_import:6.2f} s  {N_JPEG / t_import:7.0f} images/s")
    print(f"  baseline sequential PIL loop (decode + resize):  {t_base:6.2f} s  {N_JPEG / t_base:7.0f} images/s")
    print(f"  ratio Studio / baseline: {t_base / t_import:.2f}×")


def _minimal_idx(path: Path, header: int) -> np.ndarray:
    with gzip.open(path, "rb") as fh:
        return np.frombuffer(fh.read(), np.uint8, offset=header)


@pytest.mark.skipif(not (DEBIAN / "train-images-idx3-ubyte.gz").exists(),
                    reason="Debian's dataset-fashion-mnist package is not installed")
def test_fashion_mnist_idx_import_speed():
    t0 = time.perf_counter()
    report = import_path(DEBIAN)
    t_import = time.perf_counter() - t0
    n = report["num_samples"]
    t0 = time.perf_counter()
    images = [_minimal_idx(DEBIAN / f"{p}-images-idx3-ubyte.gz", 16) for p in ("train", "t10k")]
    labels = [_minimal_idx(DEBIAN / f"{p}-labels-idx1-ubyte.gz", 8) for p in ("train", "t10k")]
    t_tv = time.perf_counter() - t0
    t0 = time.perf_counter()
    arrays = cache.load_arrays(report["name"])
    t_load = time.perf_counter() - t0
    assert n == 70_000 and sum(len(x) for x in images) == n * 784 and sum(len(y) for y in labels) == n
    assert arrays["x"].shape == (n, 1, 28, 28)
    print(f"\nFashion-MNIST IDX (gz), {n} images")
    print(f"  Studio import (gunzip, parse, check, cache write): {t_import:6.2f} s  {n / t_import:9.0f} images/s")
    print(f"  baseline gunzip + np.frombuffer, no checks:      {t_tv:6.2f} s  {n / t_tv:9.0f} images/s")
    print(f"  loading the cached entry back: {t_load * 1000:.0f} ms ({n / t_load:,.0f} images/s)")
