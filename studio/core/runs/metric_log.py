"""A run's own record of every logged value: ``metrics.csv`` in its folder (layout.metrics_path), appended by
rank 0 on the same call that writes the rows to runs.db (RunStore.log_metrics), so runs.db's metrics can be
rebuilt from the folders with nothing lost (core/runs/db.py).

Format: a header line ``step,name,value,wall``, then one line per value (``repr`` floats, so ``nan`` and
``inf`` round-trip; a name holding a comma or a quote is CSV-quoted). A resume that drops the rows past its
checkpoint appends ``#after,STEP``: rows read before it with a larger step are dropped. Crash-safe: each batch is
one ``write``; a torn last line (no newline) is ignored on read, and the next writer starts on a fresh line. Reading
keeps the last value of each ``(step, name)``, so a step logged twice (a resume at that step) is one value.

Damage costs only the damaged line: the file is read as a stream in blocks, a line longer than ``MAX_LINE`` bytes
is passed over without being held, and a line that is not ``step,name,value,wall`` (garbage, NUL bytes, a broken
quote) is skipped. ``read_checked`` counts the skipped lines and names the first few (``Record.skipped``).
"""

from __future__ import annotations

import csv
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from studio.core.contracts import layout
from studio.core.host import fault_points

HEADER = "step,name,value,wall\n"
AFTER = "#after"
MAX_LINE = 64 * 1024  # bytes: a row is a step, a name and two numbers; a longer line is damage
BLOCK = 1 << 20  # bytes read at a time
MAX_NAMED = 3  # skipped lines named in a Record

Row = tuple[int, str, float, float]


def _name(name: str) -> str:
    if any(c in name for c in ',"\n\r'):
        return '"' + name.replace('"', '""').replace("\n", " ").replace("\r", " ") + '"'
    return name


def _append(path: Path, text: str) -> None:
    """One ``write`` in append mode; a torn last line left by a crash is ended first."""
    with open(path, "a+b", buffering=0) as fh:  # unbuffered: the text goes out in one write; reads are allowed
        size = fh.seek(0, os.SEEK_END)
        if size == 0:
            text = HEADER + text
        else:
            fh.seek(size - 1)
            if fh.read(1) != b"\n":
                text = "\n" + text
        data = text.encode("utf-8")
        if "metrics.append" in fault_points.PLAN:  # test-only: a crash after half a batch is written (a torn line)
            fh.write(data[:len(data) // 2])
            fault_points.reached("metrics.append")
            data = data[len(data) // 2:]
        fh.write(data)  # append mode: at the end, wherever the read left the position


def append(run_dir: Path, rows: Iterable[Row]) -> None:
    """Append ``(step, name, value, wall)`` rows to the run's record (OSError when it cannot be written)."""
    text = "".join(f"{int(s)},{_name(n)},{float(v)!r},{float(w)!r}\n" for s, n, v, w in rows)
    if text:
        _append(layout.metrics_path(run_dir), text)


def drop_after(run_dir: Path, step: int) -> None:
    """Mark the rows past ``step`` as dropped (a resume from the checkpoint at ``step`` redoes them)."""
    if layout.metrics_path(run_dir).exists():
        _append(layout.metrics_path(run_dir), f"{AFTER},{int(step)}\n")


@dataclass
class Record:
    """What a run's ``metrics.csv`` gave: its rows, and the lines that could not be read."""

    rows: list[Row]
    skipped: int = 0  # lines that are not a row (the header, ``#after`` lines and a torn last line are not counted)
    examples: list[str] = field(default_factory=list)  # the first few: "line 17: longer than 64 KB"

    def skip(self, number: int, reason: str) -> None:
        self.skipped += 1
        if len(self.examples) < MAX_NAMED:
            self.examples.append(f"line {number}: {reason}")


def _lines(fh: BinaryIO, cap: int = MAX_LINE, block: int = BLOCK) -> Iterator[tuple[bytes | None, bool]]:
    """``(line, ended)`` for each ``\\n``-ended line read ``block`` bytes at a time; ``line`` is None for a line
    longer than ``cap`` (passed over, never held whole); ``ended`` is False only for a last line with no newline."""
    tail, skipping = b"", False
    while data := fh.read(block):
        pieces = (tail + data).split(b"\n")
        tail = pieces.pop()
        for piece in pieces:
            yield (None if skipping or len(piece) > cap else piece), True
            skipping = False
        if len(tail) > cap:
            tail, skipping = b"", True
    if tail or skipping:
        yield (None if skipping else tail), False


def _row(line: str) -> Row | None:
    fields = line.split(",") if '"' not in line else next(csv.reader([line]), [])
    if len(fields) != 4:
        return None
    return int(fields[0]), fields[1], float(fields[2]), float(fields[3])


def read_checked(run_dir: Path) -> Record | None:
    """The run's values (as :func:`read`) and the lines that could not be read; None when the run has no record."""
    path = layout.metrics_path(run_dir)
    try:
        fh = open(path, "rb")
    except OSError:
        return None
    out = Record([])
    rows: dict[tuple[int, str], Row] = {}
    with fh:
        try:
            for number, (raw, ended) in enumerate(_lines(fh), 1):
                if not ended:
                    break  # a torn last line: the write a crash cut short (runs.db never committed it)
                if raw is None:
                    out.skip(number, f"longer than {MAX_LINE // 1024} KB")
                    continue
                line = raw.decode("utf-8", errors="replace")
                if number == 1 and line == HEADER.rstrip("\n"):
                    continue
                if line.startswith(AFTER + ","):
                    try:
                        after = int(line[len(AFTER) + 1:])
                    except ValueError:
                        out.skip(number, "a damaged #after line")
                        continue
                    rows = {k: r for k, r in rows.items() if r[0] <= after}
                    continue
                try:
                    row = _row(line)
                except (ValueError, csv.Error):
                    row = None
                if row is None:
                    out.skip(number, "not step,name,value,wall")
                    continue
                key = (row[0], row[1])
                rows.pop(key, None)
                rows[key] = row
        except OSError as err:  # a read error mid-file: what was read so far is kept
            out.skip(0, f"the rest of the file cannot be read ({err.strerror or err})")
    out.rows = list(rows.values())
    return out


def read(run_dir: Path) -> list[Row] | None:
    """The run's values as ``(step, name, value, wall)``, the last of each ``(step, name)``, in the order they
    were (last) written; None when the run has no record (a run from before it was kept). Lines that cannot be
    read are skipped (``read_checked`` counts them)."""
    record = read_checked(run_dir)
    return None if record is None else record.rows
