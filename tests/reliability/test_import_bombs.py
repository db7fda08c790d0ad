"""Fault 9: archive bombs and giant rows are refused early; non-finite labels are refused."""

from __future__ import annotations

import io
import os
import tarfile
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest

from studio.core.datasets.importers import archive
from studio.core.datasets.importers.archive import extract_archive
from studio.core.datasets.importers.csv_table import read_csv
from studio.core.datasets.importers.options import ImportOptions
from studio.core.datasets.importers.progress import Progress
from studio.core.errors import DataError


def written(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def test_zip_bomb_is_refused_before_unpacking(tmp_path, monkeypatch):
    """A zip that declares ×1000 its size: refused from its declared sizes, nothing written (the limits are
    scaled down so the test builds a 64 MB bomb, not a 2 GB one)."""
    monkeypatch.setattr(archive, "RATIO_FREE", 1 << 20)
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        zf.writestr("zeros.bin", bytes(64 << 20))
    assert bomb.stat().st_size < 1 << 20
    dest = tmp_path / "out"
    started = time.monotonic()
    with pytest.raises(DataError, match="archive bomb"):
        extract_archive(bomb, dest, Progress())
    assert time.monotonic() - started < 5 and written(dest) == 0


def test_tar_bomb_is_refused_and_writes_are_capped(tmp_path, monkeypatch):
    """A .tar.gz bomb is refused at the member that takes it over the limit; and the bytes written are
    counted against the archive's allowance, whatever the headers declare."""
    monkeypatch.setattr(archive, "RATIO_FREE", 1 << 20)
    bomb = tmp_path / "bomb.tar.gz"
    with tarfile.open(bomb, "w:gz") as tf:
        for i in range(8):
            info = tarfile.TarInfo(f"zeros{i}.bin")
            info.size = 4 << 20
            tf.addfile(info, io.BytesIO(bytes(info.size)))
    dest = tmp_path / "out"
    with pytest.raises(DataError, match="archive bomb"):
        extract_archive(bomb, dest, Progress())
    assert written(dest) <= archive.allowance(bomb.stat().st_size)
    budget = archive._Budget(bomb, 10)
    with pytest.raises(DataError, match="more than it declares"):
        archive._copy(io.BytesIO(bytes(100)), tmp_path / "x" / "lying.bin", Progress(), budget, None)


def test_csv_with_an_absurd_row_is_refused_early(tmp_path, monkeypatch):
    """10 million columns was read in full (3 minutes, 1.7 GB) before being refused: now the first row is
    read up to a cap, then refused."""
    monkeypatch.setattr("studio.core.datasets.importers.csv_table.MAX_LINE_CHARS", 1 << 20)
    wide = tmp_path / "wide.csv"
    with open(wide, "w") as fh:
        fh.write("label," + ",".join("0" for _ in range(2_000_000)) + "\n")
    started = time.monotonic()
    with pytest.raises(DataError, match="row 1 is longer"):
        read_csv(wide, ImportOptions(), Progress())
    assert time.monotonic() - started < 2


def test_non_finite_labels_are_refused(tmp_path):
    from studio.core.datasets.importers.csv_table import import_csv

    table = tmp_path / "nan.csv"
    table.write_text("label,p1,p2,p3,p4\n0,1,2,3,4\nnan,1,2,3,4\n1,4,3,2,1\n")
    with pytest.raises(DataError, match="'nan'.*not a class"):
        import_csv([(table, 0)], ImportOptions(), Progress())
    from studio.core.datasets.importers.result import encode_labels

    with pytest.raises(DataError, match="NaN"):
        encode_labels(np.array([0.0, np.nan, 1.0]))


def test_cli_refuses_a_declared_bomb_with_one_line(tmp_path):
    """`studio data import` of a zip whose directory declares 2 GiB for 1 KB of data: exit 2, one line,
    nothing unpacked into the cache."""
    import struct

    from tests.conftest import run_cli

    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("train/0/a.png", bytes(1024))
    raw = bytearray(bomb.read_bytes())
    for signature, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        at = raw.find(signature)
        raw[at + offset:at + offset + 4] = struct.pack("<I", 2 << 30)
    bomb.write_bytes(bytes(raw))
    result = run_cli("data", "import", str(bomb), env={**os.environ, "STUDIO_DATA_DIR": str(tmp_path / "cache")})
    assert result.returncode == 2, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.startswith("studio: error:")]
    assert len(lines) == 1 and "archive bomb" in lines[0], result.stderr
    assert "Traceback" not in result.stderr
    cache = tmp_path / "cache"
    assert not cache.exists() or written(cache) == 0
