"""Small real datasets written at test time: image folders (with broken files), IDX, CSV, NPZ,
archives with hostile entries, a PNG header that claims an absurd size."""

from __future__ import annotations

import gzip
import struct
import zlib
from pathlib import Path

import numpy as np
from PIL import Image

MODES = ("L", "RGB", "RGBA", "P")


def image_folder(root: Path, classes: tuple[str, ...] = ("cat", "dog", "emu"), per_class: int = 10,
                 size: tuple[int, int] = (24, 20), modes: tuple[str, ...] = MODES, odd_size_every: int = 4,
                 seed: int = 0) -> Path:
    """One subfolder per class of PNG and JPEG files in mixed modes; every ``odd_size_every``-th image
    has another size. Each class's images have a distinct mean brightness (so they are learnable)."""
    rng = np.random.default_rng(seed)
    for c, name in enumerate(classes):
        folder = root / name
        folder.mkdir(parents=True, exist_ok=True)
        for i in range(per_class):
            w, h = size if not odd_size_every or i % odd_size_every else (size[0] + 7, size[1] + 3)
            base = 40 + 60 * c
            arr = np.clip(rng.normal(base, 20, (h, w, 3)), 0, 255).astype(np.uint8)
            mode = modes[i % len(modes)]
            img = Image.fromarray(arr, "RGB").convert(mode)
            if mode in ("L", "RGB") and i % 2:
                img.save(folder / f"{name}_{i:03d}.jpg", quality=90)
            else:
                img.save(folder / f"{name}_{i:03d}.png")
    return root


def grey_folder(root: Path, classes: tuple[str, ...] = ("a", "b"), per_class: int = 6, size: int = 12) -> Path:
    for c, name in enumerate(classes):
        (root / name).mkdir(parents=True, exist_ok=True)
        for i in range(per_class):
            Image.fromarray(np.full((size, size), 30 + 100 * c + i, np.uint8), "L").save(root / name / f"{i}.png")
    return root


def corrupt_files(folder: Path) -> list[str]:
    """A non-image with an image name and a truncated PNG in ``folder``; their names."""
    (folder / "zz_not_an_image.png").write_bytes(b"this is not a PNG at all")
    good = next(p for p in sorted(folder.iterdir()) if p.suffix == ".png")
    data = good.read_bytes()
    (folder / "zz_truncated.png").write_bytes(data[: len(data) // 2])
    return ["zz_not_an_image.png", "zz_truncated.png"]


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def png_bomb(path: Path, width: int = 30_000, height: int = 30_000) -> Path:
    """A tiny PNG whose header claims width × height pixels (a decompression bomb)."""
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    body = zlib.compress(b"\x00" * 64)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", body) + _chunk(b"IEND", b""))
    return path


def write_idx(path: Path, arr: np.ndarray, magic_type: int = 0x08) -> Path:
    raw = bytes([0, 0, magic_type, arr.ndim]) + b"".join(struct.pack(">I", d) for d in arr.shape) + arr.tobytes()
    if path.suffix == ".gz":
        with gzip.open(path, "wb") as fh:
            fh.write(raw)
    else:
        path.write_bytes(raw)
    return path


def idx_folder(root: Path, n_train: int = 60, n_test: int = 20, gz: bool = True, side: int = 8) -> Path:
    rng = np.random.default_rng(1)
    root.mkdir(parents=True, exist_ok=True)
    ext = ".gz" if gz else ""
    for prefix, n in (("train", n_train), ("t10k", n_test)):
        write_idx(root / f"{prefix}-images-idx3-ubyte{ext}", rng.integers(0, 256, (n, side, side), dtype=np.uint8))
        write_idx(root / f"{prefix}-labels-idx1-ubyte{ext}", (np.arange(n) % 4).astype(np.uint8))
    return root


def sign_csv(path: Path, rows: int = 40, side: int = 6, labels: list[int] | None = None, header: bool = True) -> Path:
    """The Sign Language MNIST layout: label,pixel1,…,pixelN with labels that skip 9."""
    rng = np.random.default_rng(2)
    labels = labels if labels is not None else [(0, 3, 10, 24)[i % 4] for i in range(rows)]
    lines = []
    if header:
        lines.append(",".join(["label"] + [f"pixel{i + 1}" for i in range(side * side)]))
    for i in range(rows):
        lines.append(",".join([str(labels[i])] + [str(v) for v in rng.integers(0, 256, side * side)]))
    path.write_text("\n".join(lines) + "\n")
    return path
