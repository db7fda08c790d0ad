"""Issue 20: a huge one-line text file under the 200 MB cap is read as a stream — overlong lines are passed
over as they are met, memory stays bounded by the longest line allowed (was: 2.9 GB for 190 MB)."""

from __future__ import annotations

import io
import random
import subprocess
import sys
import tracemalloc

import pytest

from studio.core.datasets.text.reading import raw_lines, read_corpus
from studio.core.errors import DataError


def reference(raw: bytes, cap: int) -> list[bytes | None]:
    """What ``raw_lines`` must give: ``bytes.splitlines`` (BOM dropped), a line over ``cap`` as None."""
    raw = raw[3:] if raw.startswith(b"\xef\xbb\xbf") else raw
    return [None if len(line) > cap else line for line in raw.splitlines()]


@pytest.mark.parametrize("seed", range(40))
def test_streamed_lines_equal_splitlines(seed):
    rng = random.Random(seed)
    alphabet = [b"a", b"b", b" ", b"\n", b"\r", b"\r\n", b"\xc3\xa9"]
    raw = (b"\xef\xbb\xbf" if seed % 3 == 0 else b"") + b"".join(
        rng.choice(alphabet) * rng.choice([1, 1, 1, 5, 40]) for _ in range(rng.randint(0, 400)))
    cap, block = rng.choice([1, 3, 8, 30]), rng.choice([1, 2, 7, 64, 4096])
    assert list(raw_lines(io.BytesIO(raw), cap, block=block)) == reference(raw, cap), (cap, block)
    kept = [line for line in raw_lines(io.BytesIO(raw), 10**9, keepends=True, block=block)]
    assert b"".join(line or b"" for line in kept) == (raw[3:] if raw.startswith(b"\xef\xbb\xbf") else raw)


def test_a_few_mb_single_line_file_is_refused_in_bounded_memory(tmp_path):
    """4 MB on one line, then a few ordinary lines, with the line limit lowered to 50 characters: the long
    line is skipped and counted, the short ones kept, and the reader never holds more than ~2 MB."""
    path = tmp_path / "one_line.txt"
    short = [f"line number {i} is short" for i in range(12)]
    with open(path, "wb") as fh:
        fh.write(b"word " * 800_000 + b"\n")
        fh.write("\n".join(short).encode() + b"\n")
    tracemalloc.start()
    try:
        text = read_corpus(path, max_line_chars=50)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert text.lines == short and text.skips.count == 1 and "more than 50 characters" in text.skips.examples[0]
    assert peak < 3 * 2**20, f"peak {peak / 2**20:.1f} MB for a 4 MB file"
    path.write_bytes(b"x" * 4_000_000)  # the one line alone: refused in one sentence
    with pytest.raises(DataError, match="0 usable lines"):
        read_corpus(path, max_line_chars=50)


def test_a_csv_with_an_overlong_physical_line_is_refused_as_met(tmp_path, monkeypatch):
    monkeypatch.setattr("studio.core.datasets.text.reading.MAX_CSV_LINE_BYTES", 1 << 16)
    path = tmp_path / "news.csv"
    path.write_bytes(b"id,headline\n" + b"".join(b"%d,the man %d\n" % (i, i) for i in range(12))
                     + b"99," + b"y" * 200_000 + b"\n")
    with pytest.raises(DataError, match="line 14 is longer than"):
        read_corpus(path)


@pytest.mark.slow
def test_190_mb_single_line_peak_memory(tmp_path):
    """The issue's case at full size, in its own process: peak resident memory (ru_maxrss) of reading a
    190 MB one-line .txt stays under 200 MB (it was 2.9 GB); prints the figure."""
    path = tmp_path / "big.txt"
    with open(path, "wb") as fh:
        for _ in range(190):
            fh.write(b"w " * (2**19))
    script = ("import resource, sys\nfrom studio.core.errors import DataError\n"
              "from studio.core.datasets.text.reading import read_corpus\n"
              "base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
              f"try:\n    read_corpus({str(path)!r})\nexcept DataError as err:\n    print(err, file=sys.stderr)\n"
              "print(base, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0 and "usable lines" in proc.stderr, proc.stderr
    base, peak = (int(v) for v in proc.stdout.split())
    print(f"190 MB one-line text: peak RSS {peak / 1024:.0f} MB (interpreter + imports {base / 1024:.0f} MB)")
    assert peak - base < 200 * 1024, (base, peak)


def test_data_import_of_a_one_line_file_is_one_line_exit_2(tmp_path):
    from tests.conftest import run_cli
    from tests.reliability.test_store_faults import one_error

    path = tmp_path / "one.txt"
    path.write_bytes(b"w " * 2_000_000)
    line = one_error(run_cli("data", "import", str(path)))
    assert "0 usable lines" in line and "line 1: more than 1,000 characters" in line, line
