"""Issue 39.4: ``studio predict`` on an 80,000,000 × 1 PNG peaked at 1.3–1.6 GB (measured here: Pillow's resampling
weights from 80 M pixels to 28, and its PNG decoder's two copies of a row). A side longer than 65,535 pixels is now
refused from the header; a big image is box-reduced by whole factors in its own mode before it is converted and
resampled."""

from __future__ import annotations

import struct
import subprocess
import sys
import zlib

import numpy as np
import pytest


def wide_png(path, width: int, height: int = 1) -> None:
    """A real grey PNG of ``width`` × ``height`` (zero pixels), written without holding the image."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    packer = zlib.compressobj(9)
    row = b"\0" * (width + 1)  # filter byte, then the pixels
    body = b"".join(packer.compress(row) for _ in range(height)) + packer.flush()
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
                     + chunk(b"IDAT", body) + chunk(b"IEND", b""))


PEAK = """
import resource, sys
from studio.core.datasets.importers.images import Geometry, SkipImage, load_image
try:
    load_image(sys.argv[1], Geometry(1, 28, 28))
    said = "decoded"
except SkipImage as err:
    said = str(err)
# this process's own peak (VmHWM): ru_maxrss would carry over the peak of the forked test runner (GBs in a full run)
hwm = [int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:")]
print((hwm[0] if hwm else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) // 1024, said)
"""


def test_an_80_million_pixel_wide_png_is_refused_from_its_header_in_little_memory(tmp_path):
    path = tmp_path / "wide.png"
    wide_png(path, 80_000_000)
    out = subprocess.run([sys.executable, "-c", PEAK, str(path)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, (out.returncode, out.stdout, out.stderr[-2000:])
    peak_mb, said = out.stdout.split(" ", 1)
    assert "refused: 80,000,000×1 pixels has a side longer than 65,535 pixels" in said
    assert int(peak_mb) < 300, f"{peak_mb} MB peak to refuse it"  # was 1,332 MB to decode it


def test_predict_names_the_refused_image_in_one_sentence(tmp_path):
    from studio.core.errors import DataError
    from studio.engine.tasks.predict import load_inputs

    path = tmp_path / "wide.png"
    wide_png(path, 70_000)
    with pytest.raises(DataError, match="^wide.png is refused: 70,000×1 pixels has a side longer than 65,535"):
        load_inputs([path], (1, 28, 28), is_image=True)


def test_a_big_image_reduced_first_looks_as_it_did(tmp_path):
    from PIL import Image

    from studio.core.datasets.importers.images import Geometry, load_image

    y, x = np.mgrid[0:3000, 0:4000]
    smooth = np.stack([127 + 120 * np.sin(x / 700 + c) * np.cos(y / 500 - c) for c in (0, 1, 2)], -1)
    big = Image.fromarray(smooth.astype(np.uint8))
    big.save(tmp_path / "big.png")
    reduced = load_image(str(tmp_path / "big.png"), Geometry(3, 30, 40))  # box-reduced by 33, then resampled
    direct = np.asarray(big.resize((40, 30), Image.Resampling.BILINEAR)).transpose(2, 0, 1)
    assert reduced.shape == (3, 30, 40)
    assert np.abs(reduced.astype(int) - direct.astype(int)).mean() < 1.5
