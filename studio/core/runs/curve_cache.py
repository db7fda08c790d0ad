"""The packed curve cache (table ``curve_cache``, migration 2 in core/runs/db.py): an ended run's metrics as
whole columns, so opening many long runs reads a few blobs per curve instead of a row per value.

- One row per (run, metric): ``steps`` (little-endian int64), ``values`` and ``walls`` (little-endian float64),
  in the plain row query's order (step, then rowid): exact, so smoothing and exports made from it are the same;
  ``overview``: the min/max decimation of the whole curve (core/maths/decimate.py) for a first draw.
- ``upto_rowid``: the run's largest metrics rowid when the cache was made. Rows logged later (rowid above it:
  a run resumed without trimming) are read as rows and merged in, so the cache plus those rows always equals the
  plain row query. ``appended``: set by ``RunStore.log_metrics`` when it adds rows to a cached run, so that only
  such runs are searched for them (a search walks the run's whole index range). Dropping rows
  (``truncate_metrics``, ``delete``) drops the run's cache. Whatever else writes metric rows must do the same.
- Written when a run ends (engine/loop/sinks.py), or lazily by ``RunStore.curves`` for an ended run that has
  none; never in a read-only store, and never for a live run (queued, running, paused: read from its chunks,
  core/runs/curve_chunks.py, which the pack replaces: it deletes the chunks it covers).
- Derived data: a database rebuilt from the run folders (db.py) starts without it and makes it again.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from studio.core.host import fault_points
from studio.core.maths.decimate import minmax_indices
from studio.core.vocab import JobState

OVERVIEW_COLUMNS = 1024  # the overview's pixel columns, ≤ 4 points each: a first draw, refined from the full curve
LIVE = tuple(s.value for s in (JobState.QUEUED, JobState.RUNNING, JobState.PAUSED))  # may log: rows, never cached
LAZY_WAIT_MS = 250  # a lazy write waits this long for another writer, then leaves the cache for next time
STEP, FLOAT = np.dtype("<i8"), np.dtype("<f8")


@dataclass
class Columns:
    """One curve's columns (numpy, native int64/float64, in step-then-rowid order)."""

    steps: np.ndarray
    values: np.ndarray
    walls: np.ndarray


def qmarks(items: Sequence[Any]) -> str:
    return ",".join("?" * len(items))


def exists(db: sqlite3.Connection) -> bool:
    """Whether the table is there (a read-only store over an old database has none: it reads rows)."""
    return db.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='curve_cache'").fetchone() is not None


def rows_query(run_ids: Sequence[str], names: Sequence[str] | None, after_rowid: bool = False) -> tuple[str, list]:
    """The plain row query of a selection (index ``metrics_by_run``, no sort step): ``run_id, name, step, value,
    wall`` in run, name, step, rowid order; ``after_rowid``: one run's rows past a rowid (a trailing ``?``)."""
    sql = f"SELECT run_id, name, step, value, wall FROM metrics WHERE run_id IN ({qmarks(run_ids)})"
    args: list[Any] = list(run_ids)
    if names is not None:
        sql += f" AND name IN ({qmarks(names)})"
        args += list(names)
    if after_rowid:
        sql += " AND rowid>?"
    return sql + " ORDER BY run_id, name, step, rowid", args


def gather(rows: Iterable[tuple]) -> dict[tuple[str, str], Columns]:
    """``(run_id, name, step, value, wall)`` rows (grouped by run and name) as columns."""
    lists: dict[tuple[str, str], tuple[list, list, list]] = {}
    for run_id, name, step, value, wall in rows:
        cols = lists.get((run_id, name))
        if cols is None:
            cols = lists[(run_id, name)] = ([], [], [])
        cols[0].append(step)
        cols[1].append(value)
        cols[2].append(wall)
    return {key: Columns(np.asarray(s, dtype=np.int64), np.asarray(v, dtype=float), np.asarray(w, dtype=float))
            for key, (s, v, w) in lists.items()}


def _unpack(blob: bytes, dtype: np.dtype) -> np.ndarray:
    return np.frombuffer(blob, dtype=dtype).astype(dtype.newbyteorder("="), copy=True)  # writable, native


def overview(cols: Columns, columns: int = OVERVIEW_COLUMNS) -> Columns:
    """The curve min/max-decimated over its whole step range (core/maths/decimate.py)."""
    keep = minmax_indices(cols.steps, cols.values, columns)
    return Columns(cols.steps[keep], cols.values[keep], cols.walls[keep])


def pack_overview(cols: Columns) -> bytes:
    small = overview(cols)
    return small.steps.astype(STEP).tobytes() + small.values.astype(FLOAT).tobytes() + \
        small.walls.astype(FLOAT).tobytes()


def unpack_overview(blob: bytes) -> Columns:
    n = len(blob) // 24
    return Columns(_unpack(blob[:8 * n], STEP), _unpack(blob[8 * n:16 * n], FLOAT), _unpack(blob[16 * n:], FLOAT))


def cached_runs(db: sqlite3.Connection, run_ids: Sequence[str]) -> tuple[dict[str, int], dict[str, int]]:
    """``run_id → upto_rowid`` of the runs among ``run_ids`` that have a cache, and of those among them that
    logged rows after it (flagged by ``RunStore.log_metrics``)."""
    sql = (f"SELECT run_id, min(upto_rowid), max(appended) FROM curve_cache WHERE run_id IN ({qmarks(run_ids)}) "
           "GROUP BY run_id")
    rows = db.execute(sql, list(run_ids)).fetchall()
    return {r: upto for r, upto, _ in rows}, {r: upto for r, upto, later in rows if later}


def uncached_ended(db: sqlite3.Connection, run_ids: Sequence[str]) -> list[str]:
    """The runs among ``run_ids`` that ended, logged something, and have no cache yet."""
    sql = (f"SELECT id FROM runs WHERE id IN ({qmarks(run_ids)}) AND status NOT IN ({qmarks(LIVE)}) "
           "AND EXISTS (SELECT 1 FROM metrics WHERE metrics.run_id=runs.id) "
           "AND NOT EXISTS (SELECT 1 FROM curve_cache WHERE curve_cache.run_id=runs.id)")
    return [r for (r,) in db.execute(sql, [*run_ids, *LIVE])]


def read(db: sqlite3.Connection, run_ids: Sequence[str], names: Sequence[str] | None,
         overview: bool = False) -> dict[tuple[str, str], Columns]:
    """The cached curves (``overview``: their overviews) of ``run_ids``, limited to ``names``."""
    if not run_ids:
        return {}
    what = "overview" if overview else 'steps, vals, walls'
    sql = f"SELECT run_id, name, {what} FROM curve_cache WHERE run_id IN ({qmarks(run_ids)})"
    args: list[Any] = list(run_ids)
    if names is not None:
        sql += f" AND name IN ({qmarks(names)})"
        args += list(names)
    out: dict[tuple[str, str], Columns] = {}
    for run_id, name, *blobs in db.execute(sql, args):
        out[(run_id, name)] = (unpack_overview(blobs[0]) if overview else
                               Columns(_unpack(blobs[0], STEP), _unpack(blobs[1], FLOAT), _unpack(blobs[2], FLOAT)))
    return out


def tails(db: sqlite3.Connection, upto: dict[str, int], names: Sequence[str] | None) -> dict[tuple[str, str], Columns]:
    """The rows each run logged after its cache's ``upto_rowid``."""
    out: dict[tuple[str, str], Columns] = {}
    for run_id, rowid in upto.items():
        sql, args = rows_query([run_id], names, after_rowid=True)
        out.update(gather(db.execute(sql, [*args, rowid])))
    return out


def merge(cached: Columns | None, tail: Columns | None) -> Columns:
    """The cached columns followed by later rows, in step order (a stable sort: equal steps keep rowid order,
    and every later row has a larger rowid than every cached one), as the row query gives them."""
    if tail is None:
        assert cached is not None
        return cached
    if cached is None:
        return tail
    steps = np.concatenate([cached.steps, tail.steps])
    order = np.argsort(steps, kind="stable")
    return Columns(steps[order], np.concatenate([cached.values, tail.values])[order],
                   np.concatenate([cached.walls, tail.walls])[order])


Reader = Callable[[sqlite3.Connection, str], "dict[tuple[str, str], Columns] | None"]


def build(db: sqlite3.Connection, run_id: str, wait_ms: int | None = None, columns: Reader | None = None) -> bool:
    """Write ``run_id``'s cache from its rows (replacing any) if it has ended, in one write transaction (so no
    resume or trim can slip in between the read and the write). ``wait_ms``: give up (False) when another writer
    holds the database longer than that. ``columns``: reads the run's curves another way (its chunks), None
    where it cannot (then the rows are read). Returns whether a cache was written."""
    old_wait = db.execute("PRAGMA busy_timeout").fetchone()[0]
    if wait_ms is not None:
        db.execute(f"PRAGMA busy_timeout={int(wait_ms)}")
    try:
        db.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as err:
        db.execute(f"PRAGMA busy_timeout={old_wait}")
        if wait_ms is not None and ("locked" in str(err) or "busy" in str(err)):
            return False
        raise
    try:
        db.execute(f"PRAGMA busy_timeout={old_wait}")
        status = db.execute("SELECT status FROM runs WHERE id=?", (run_id,)).fetchone()
        if status is None or status[0] in LIVE:
            db.rollback()
            return False
        upto, count = db.execute("SELECT COALESCE(MAX(rowid), 0), count(*) FROM metrics WHERE run_id=?",
                                 (run_id,)).fetchone()
        curves = columns(db, run_id) if columns is not None else None
        if curves is None:
            sql, args = rows_query([run_id], None)
            curves = gather(db.execute(sql, args))
        db.execute("DELETE FROM curve_cache WHERE run_id=?", (run_id,))
        fault_points.reached("curve.pack")  # test-only: a crash inside the pack's transaction
        if db.execute("SELECT 1 FROM sqlite_master WHERE name='curve_chunks'").fetchone() is not None:
            db.execute("DELETE FROM curve_chunks WHERE run_id=? AND upto_rowid<=?", (run_id, upto))  # now packed
        db.executemany("INSERT INTO curve_cache (run_id, name, upto_rowid, count, steps, vals, walls, overview) "
                       "VALUES (?,?,?,?,?,?,?,?)",
                       [(run_id, name, upto, len(c.steps), c.steps.astype(STEP).tobytes(),
                         c.values.astype(FLOAT).tobytes(), c.walls.astype(FLOAT).tobytes(), pack_overview(c))
                        for (_, name), c in curves.items()])
        db.commit()
        return bool(count)
    except BaseException:
        db.rollback()
        raise
