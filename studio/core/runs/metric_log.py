"""A run's own record of every logged value: ``metrics.csv`` in its folder (layout.metrics_path), appended by
rank 0 on the same call that writes the rows to runs.db (RunStore.log_metrics), so runs.db's metrics can be
rebuilt from the folders with nothing lost (core/runs/db.py).

Format: a header line ``step,name,value,wall``, then one line per value (``repr`` floats, so ``nan`` and
``inf`` round-trip; a name holding a comma or a quote is CSV-quoted). A resume that drops the rows past its
checkpoint appends ``#after,STEP``: rows read before it with a larger step are dropped. Crash-safe: each batch is
one ``write``; a torn last line (no newline) is ignored on read, and the next writer starts on a fresh line; a line
that cannot be read is skipped, never fatal. Reading keeps the last value of each ``(step, name)``, so a step
logged twice (a resume at that step) is one value.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Iterable
from pathlib import Path

from studio.core.contracts import layout

HEADER = "step,name,value,wall\n"
AFTER = "#after"

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
        fh.write(text.encode("utf-8"))  # append mode: at the end, wherever the read left the position


def append(run_dir: Path, rows: Iterable[Row]) -> None:
    """Append ``(step, name, value, wall)`` rows to the run's record (OSError when it cannot be written)."""
    text = "".join(f"{int(s)},{_name(n)},{float(v)!r},{float(w)!r}\n" for s, n, v, w in rows)
    if text:
        _append(layout.metrics_path(run_dir), text)


def drop_after(run_dir: Path, step: int) -> None:
    """Mark the rows past ``step`` as dropped (a resume from the checkpoint at ``step`` redoes them)."""
    if layout.metrics_path(run_dir).exists():
        _append(layout.metrics_path(run_dir), f"{AFTER},{int(step)}\n")


def read(run_dir: Path) -> list[Row] | None:
    """The run's values as ``(step, name, value, wall)``, the last of each ``(step, name)``, in the order they
    were (last) written; None when the run has no record (a run from before it was kept)."""
    path = layout.metrics_path(run_dir)
    try:
        data = path.read_bytes()
    except OSError:
        return None
    end = data.rfind(b"\n")
    text = data[:end + 1].decode("utf-8", errors="replace")  # a torn last line (no newline) is left out
    rows: dict[tuple[int, str], Row] = {}
    for fields in csv.reader(text.splitlines()):
        if len(fields) == 2 and fields[0] == AFTER:
            try:
                after = int(fields[1])
            except ValueError:
                continue
            rows = {k: r for k, r in rows.items() if r[0] <= after}
            continue
        if len(fields) != 4:
            continue
        try:
            row = (int(fields[0]), fields[1], float(fields[2]), float(fields[3]))
        except ValueError:  # the header, or a damaged line
            continue
        key = (row[0], row[1])
        rows.pop(key, None)
        rows[key] = row
    return list(rows.values())
