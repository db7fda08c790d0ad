"""Images as PNG files in class subfolders (a folder ``studio data import`` and the input-pipeline sweep read):
for a dataset stored as arrays, the paper check's own folder and the benchmark's 10,000 files."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image


def class_dir(index: int, name: str) -> str:
    """A folder name for a class: its name made safe, prefixed by its index so the sorted order is the classes'."""
    safe = re.sub(r"[^A-Za-z0-9_\-]+", "_", name).strip("_") or "class"
    return f"{index:03d}_{safe}"


def write_pngs(x: np.ndarray, y: np.ndarray, classes: Sequence[str], target: Path, scale: int = 1,
               progress: Any = None) -> int:
    """Write uint8 ``x`` (N, C, H, W) as ``target/<class>/<i>.png``, each enlarged ``scale`` times (bilinear, so
    decoding costs more); the number of files written."""
    target.mkdir(parents=True, exist_ok=True)
    folders = [target / class_dir(i, str(c)) for i, c in enumerate(classes)]
    for folder in folders:
        folder.mkdir(exist_ok=True)
    n = len(x)
    for i in range(n):
        arr = x[i]
        img = Image.fromarray(arr[0] if arr.shape[0] == 1 else arr.transpose(1, 2, 0))
        if scale > 1:
            img = img.resize((img.width * scale, img.height * scale), Image.Resampling.BILINEAR)
        img.save(folders[int(y[i])] / f"{i:06d}.png", compress_level=6)
        if progress is not None and i % 200 == 0:
            progress(i / n, f"writing PNG files {i:,}/{n:,}")
    return n
