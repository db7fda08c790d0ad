"""Curve chunks (tables ``curve_chunks`` and ``curve_chunked``, migration 4 in core/runs/db.py): a run's metrics as
packed columns kept up to date *as values arrive*, so a live run, an imported run and a tracked one read like a
packed (ended) one: a few blobs per run instead of a row per value.

- ``RunStore.log_metrics`` appends one chunk per call, in the transaction that inserts the rows: ``upto_rowid``
  (the largest rowid of its rows), ``names`` (JSON) and per point ``name_ix`` (<u4, into ``names``), ``steps``
  (<i8), ``vals`` and ``walls`` (<f8), grouped by metric, each metric's points in insertion (rowid) order. So
  chunks and rows are committed, or lost, together; a read slices each metric out of each chunk.
- Chunks merge as they accumulate: when the run's last ``FAN_IN`` chunks are of one ``level`` they become one chunk
  of the next level (a log-structured merge: a run of n calls keeps ~``FAN_IN``·log(n) chunks, and each point is
  rewritten ~log(n) times).
- ``curve_chunked`` lists the runs whose every row is in a chunk (or in the run's pack, core/runs/curve_cache.py):
  a run is added when it logs its first rows, or converted — its existing rows made one chunk — the first time
  it logs after an upgrade or ``convert`` is called (in the background). Other runs are read as rows.
- A pack written at a run's end covers the chunks up to its ``upto_rowid``; they are deleted with it. Reading
  takes the pack plus the chunks past it. Dropping rows (``truncate_metrics``, ``delete``) converts the run again
  or forgets it.
- A row added or removed by another writer (an older Studio sharing the store) takes its run off
  ``curve_chunked`` (triggers, migration 5): the run is read as rows until it is converted again.
- Derived data, like the pack: a database rebuilt from the run folders starts without chunks and converts runs.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from studio.core.host import fault_points
from studio.core.runs.curve_cache import FLOAT, STEP, Columns, qmarks

FAN_IN = 8  # chunks of one level merged into one of the next
NAME_IX = np.dtype("<u4")


@dataclass
class Chunk:
    """Points of one run grouped by metric (``name_ix`` ascending), each metric's in insertion (rowid) order."""

    names: list[str]
    name_ix: np.ndarray
    steps: np.ndarray
    values: np.ndarray
    walls: np.ndarray

    def __len__(self) -> int:
        return len(self.steps)


def exists(db: sqlite3.Connection) -> bool:
    """Whether the tables are there (a read-only store over an old database has none: it reads rows)."""
    return db.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='curve_chunked'").fetchone() is not None


def chunked(db: sqlite3.Connection, run_ids: Sequence[str]) -> set[str]:
    """The runs among ``run_ids`` whose rows are all in chunks (or their pack)."""
    if not run_ids:
        return set()
    return {r for (r,) in db.execute(f"SELECT run_id FROM curve_chunked WHERE run_id IN ({qmarks(run_ids)})",
                                     list(run_ids))}


def from_rows(rows: list[tuple[str, int, float, float]]) -> Chunk:
    """A chunk of ``(name, step, value, wall)`` rows, in their order."""
    names: dict[str, int] = {}
    ix = [names.setdefault(name, len(names)) for name, *_ in rows]
    _, steps, values, walls = zip(*rows, strict=True) if rows else ((), (), (), ())
    return _grouped(Chunk(list(names), np.asarray(ix, dtype=np.uint32), np.asarray(steps, dtype=np.int64),
                          np.asarray(values, dtype=float), np.asarray(walls, dtype=float)))


def _grouped(c: Chunk) -> Chunk:
    """The chunk's points grouped by metric, a stable (radix) sort: each metric's keep their order."""
    order = np.argsort(c.name_ix, kind="stable")
    return Chunk(c.names, c.name_ix[order], c.steps[order], c.values[order], c.walls[order])


def _insert(db: sqlite3.Connection, run_id: str, upto: int, level: int, c: Chunk) -> None:
    db.execute("INSERT OR REPLACE INTO curve_chunks (run_id, upto_rowid, level, count, names, name_ix, steps, vals, "
               "walls) VALUES (?,?,?,?,?,?,?,?,?)",
               (run_id, upto, level, len(c), json.dumps(c.names), c.name_ix.astype(NAME_IX).tobytes(),
                c.steps.astype(STEP).tobytes(), c.values.astype(FLOAT).tobytes(), c.walls.astype(FLOAT).tobytes()))


def _chunk(names: str, ix: bytes, steps: bytes, vals: bytes, walls: bytes) -> Chunk:
    """A stored chunk (read-only views of its blobs)."""
    return Chunk(json.loads(names), np.frombuffer(ix, NAME_IX), np.frombuffer(steps, STEP), np.frombuffer(vals, FLOAT),
                 np.frombuffer(walls, FLOAT))


def concat(chunks: list[Chunk]) -> Chunk:
    """Chunks one after the other (their names unified), grouped by metric again."""
    names: dict[str, int] = {}
    ixs = []
    for c in chunks:
        remap = np.asarray([names.setdefault(n, len(names)) for n in c.names] or [0], dtype=np.uint32)
        ixs.append(remap[c.name_ix] if len(c) else c.name_ix)
    if not chunks:
        return Chunk([], np.empty(0, np.uint32), np.empty(0, np.int64), np.empty(0), np.empty(0))
    return _grouped(Chunk(list(names), np.concatenate(ixs), np.concatenate([c.steps for c in chunks]),
                          np.concatenate([c.values for c in chunks]), np.concatenate([c.walls for c in chunks])))


def ensure(db: sqlite3.Connection, run_id: str) -> None:
    """Inside ``log_metrics``' transaction, before its rows: a run not chunked yet is converted (its older rows
    made one chunk; none for a new run)."""
    if db.execute("SELECT 1 FROM curve_chunked WHERE run_id=?", (run_id,)).fetchone() is None:
        convert_run(db, run_id)


def append(db: sqlite3.Connection, run_id: str, rows: list[tuple[int, str, float, float]], upto: int) -> None:
    """Inside ``log_metrics``' transaction, after its rows (their largest rowid ``upto``; ``ensure`` came
    before them): the batch becomes a chunk, and full levels merge."""
    if not rows:
        return
    _insert(db, run_id, upto, 0, from_rows([(n, s, v, w) for s, n, v, w in rows]))
    fault_points.reached("curve.chunk")  # test-only: a crash with the chunk written, the transaction open
    _merge_full_levels(db, run_id)
    # the rows' trigger (migration 5 in core/runs/db.py) took the run off the list: its chunks cover them
    db.execute("INSERT OR IGNORE INTO curve_chunked (run_id) VALUES (?)", (run_id,))


def convert_run(db: sqlite3.Connection, run_id: str) -> int:
    """Inside a write transaction: the run's rows not covered by its pack become one chunk (replacing any), and
    the run is listed as chunked. Returns the points chunked."""
    pack, later = db.execute("SELECT min(upto_rowid), max(appended) FROM curve_cache WHERE run_id=?",
                             (run_id,)).fetchone()
    rows = [] if pack and not later else db.execute(  # a pack with nothing logged after it: no row to read
        "SELECT name, step, value, wall, rowid FROM metrics WHERE run_id=? AND rowid>? ORDER BY name, step, rowid",
        (run_id, pack or 0)).fetchall()
    fault_points.reached("curve.convert.read")  # test-only: between the reads and the writes
    db.execute("DELETE FROM curve_chunks WHERE run_id=?", (run_id,))
    if rows:
        _insert(db, run_id, max(r[4] for r in rows), FAN_IN, from_rows([r[:4] for r in rows]))
    fault_points.reached("curve.convert")  # test-only: a crash inside a conversion's transaction
    db.execute("INSERT OR IGNORE INTO curve_chunked (run_id) VALUES (?)", (run_id,))
    return len(rows)


def _merge_full_levels(db: sqlite3.Connection, run_id: str) -> None:
    while True:
        levels = db.execute("SELECT level FROM curve_chunks WHERE run_id=? ORDER BY upto_rowid DESC LIMIT ?",
                            (run_id, FAN_IN)).fetchall()
        if len(levels) < FAN_IN or len(set(levels)) != 1:
            return
        last = db.execute("SELECT upto_rowid, level, names, name_ix, steps, vals, walls FROM curve_chunks "
                          "WHERE run_id=? ORDER BY upto_rowid DESC LIMIT ?", (run_id, FAN_IN)).fetchall()
        last.reverse()
        merged = concat([_chunk(*r[2:]) for r in last])
        db.execute(f"DELETE FROM curve_chunks WHERE run_id=? AND upto_rowid IN ({qmarks(last)})",
                   [run_id, *[r[0] for r in last]])
        fault_points.reached("curve.merge")  # test-only: a crash between a merge's delete and its insert
        _insert(db, run_id, last[-1][0], last[0][1] + 1, merged)


def forget(db: sqlite3.Connection, run_id: str) -> None:
    """The run's chunks go and it is read as rows (until converted again)."""
    db.execute("DELETE FROM curve_chunks WHERE run_id=?", (run_id,))
    db.execute("DELETE FROM curve_chunked WHERE run_id=?", (run_id,))


def drop_packed(db: sqlite3.Connection, run_id: str, upto: int) -> None:
    """A pack up to ``upto`` was written (same transaction): the chunks it covers go."""
    db.execute("DELETE FROM curve_chunks WHERE run_id=? AND upto_rowid<=?", (run_id, upto))


def read(db: sqlite3.Connection, run_ids: Sequence[str], after: dict[str, int],
         names: Sequence[str] | None) -> dict[tuple[str, str], Columns]:
    """The chunked points of ``run_ids`` past ``after[run]`` (a pack's ``upto_rowid``; 0 without one), per metric
    in step-then-rowid order (a stable sort of the insertion order)."""
    out: dict[tuple[str, str], Columns] = {}
    if not run_ids:
        return out
    by_run: dict[str, list[Chunk]] = {}
    for run_id, upto, *blobs in db.execute(
            f"SELECT run_id, upto_rowid, names, name_ix, steps, vals, walls FROM curve_chunks "
            f"WHERE run_id IN ({qmarks(run_ids)}) ORDER BY run_id, upto_rowid", list(run_ids)):
        if upto > after.get(run_id, 0):
            by_run.setdefault(run_id, []).append(_chunk(*blobs))
    wanted = None if names is None else set(names)
    for run_id, chunks in by_run.items():
        pieces: dict[str, list[tuple[np.ndarray, np.ndarray, np.ndarray]]] = {}
        for c in chunks:  # each metric's slice of each chunk, in chunk (rowid) order
            bounds = np.searchsorted(c.name_ix, np.arange(len(c.names) + 1))
            for k, name in enumerate(c.names):
                if wanted is None or name in wanted:
                    a, b = bounds[k], bounds[k + 1]
                    pieces.setdefault(name, []).append((c.steps[a:b], c.values[a:b], c.walls[a:b]))
        for name, parts in pieces.items():
            steps = np.concatenate([p[0] for p in parts]).astype(np.int64, copy=False)
            values = np.concatenate([p[1] for p in parts]).astype(float, copy=False)
            walls = np.concatenate([p[2] for p in parts]).astype(float, copy=False)
            if len(steps) > 1 and np.any(steps[1:] < steps[:-1]):  # logged out of step order: a stable sort
                order = np.argsort(steps, kind="stable")
                steps, values, walls = steps[order], values[order], walls[order]
            out[(run_id, name)] = Columns(steps, values, walls)
    return out


def convert(db: sqlite3.Connection, run_ids: Sequence[str],
            progress: Callable[[int, int], None] | None = None) -> int:
    """Convert the runs among ``run_ids`` not yet chunked, one transaction each (``progress(done, total)`` after
    each): for an old store, in the background. Returns the runs converted."""
    todo = [r for r in run_ids if r not in chunked(db, run_ids)]
    for i, run_id in enumerate(todo):
        db.execute("BEGIN IMMEDIATE")
        try:
            convert_run(db, run_id)
            db.commit()
        except BaseException:
            db.rollback()
            raise
        if progress is not None:
            progress(i + 1, len(todo))
    return len(todo)
