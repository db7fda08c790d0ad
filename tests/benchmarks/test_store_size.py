"""Issue 40, item 2's yardstick: what a logged value costs on disk today, part by part, against TensorBoard's event
files for the same values.

A store of RUNS runs × STEPS steps is built by ``big_store.build`` (the real ``RunStore``: ``log_metrics`` in
batches, the run's end packing its curves, as a real run's rank 0 does; 7 metrics, 4 of them every step). Its
parts are read from SQLite's own page accounting (the ``dbstat`` table): the metric rows, their index, the curve
chunks, the curve packs, the rest; then the run folders' ``metrics.csv`` (the record a damaged database is rebuilt
from) and the event files ``big_store`` writes for the same values. Those are checked against the real writer
first: one run's values through ``torch.utils.tensorboard.SummaryWriter`` make a file of the same size, ± its
header.

Run: ``python -m pytest tests/benchmarks/test_store_size.py -m benchmark -s``
(STUDIO_BENCH_SIZE_RUNS / STUDIO_BENCH_SIZE_STEPS change the 10 × 20,000).
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

RUNS = int(os.environ.get("STUDIO_BENCH_SIZE_RUNS", "10"))
STEPS = int(os.environ.get("STUDIO_BENCH_SIZE_STEPS", "20000"))


def table_bytes(db_path: Path) -> dict[str, int]:
    """Bytes of each table and index of the database (its pages), and of its free pages."""
    db = sqlite3.connect(db_path)
    try:
        parts = dict(db.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name").fetchall())
        page = db.execute("PRAGMA page_size").fetchone()[0]
        parts["(free pages)"] = db.execute("PRAGMA freelist_count").fetchone()[0] * page
    finally:
        db.close()
    return parts


def folder_bytes(root: Path, pattern: str) -> int:
    return sum(p.stat().st_size for p in root.rglob(pattern))


def summary_writer_bytes(folder: Path, metrics: dict) -> int:
    """One run's values through TensorBoard's own writer, in step order as a training loop writes them."""
    from torch.utils.tensorboard import SummaryWriter

    rows = sorted((int(s), name, float(v), float(w)) for name, (ss, vv, ww) in metrics.items()
                  for s, v, w in zip(ss, vv, ww, strict=True))
    writer = SummaryWriter(str(folder))
    for step, name, value, wall in rows:
        writer.add_scalar(name, value, step, walltime=wall)
    writer.close()
    return folder_bytes(folder, "events.out.tfevents.*")


@pytest.mark.benchmark
def test_bytes_a_value_part_by_part_against_tensorboard(tmp_path: Path) -> None:
    from tests.benchmarks import big_store

    big = big_store.build(RUNS, STEPS, root=tmp_path, log=lambda line: None)
    values = RUNS * big_store.rows_per_run(STEPS)
    db_path = big.home / "runs.db"
    parts = table_bytes(db_path)
    groups = {
        "metric rows (table metrics)": parts.pop("metrics", 0),
        "their index (metrics_by_run)": parts.pop("metrics_by_run", 0),
        "curve chunks": parts.pop("curve_chunks", 0),
        "curve packs (curve_cache)": parts.pop("curve_cache", 0) + parts.pop("sqlite_autoindex_curve_cache_1", 0),
        "free pages": parts.pop("(free pages)", 0),
    }
    groups["the rest of runs.db (runs, params, tags, …)"] = sum(parts.values())
    csv = folder_bytes(big.home / "runs", "metrics.csv")
    events = folder_bytes(big.logdir, "events.out.tfevents.*")
    real = summary_writer_bytes(tmp_path / "summary-writer", big_store.curves(0, STEPS, 1.7e9))
    one_run = folder_bytes(big.logdir / sorted(p.name for p in big.logdir.iterdir())[0], "events.out.tfevents.*")
    studio_total = db_path.stat().st_size + csv
    print(f"\n{RUNS} runs × {STEPS:,} steps = {values:,} values (4 metrics every step, 3 now and then)")
    print(f"{'part':48s} {'MB':>8s} {'bytes a value':>14s}")
    for name, size in groups.items():
        print(f"  {name:46s} {size / 1e6:8.1f} {size / values:14.1f}")
    print(f"  {'runs.db (the file)':46s} {db_path.stat().st_size / 1e6:8.1f} {db_path.stat().st_size / values:14.1f}")
    print(f"  {'metrics.csv (the run folders record)':46s} {csv / 1e6:8.1f} {csv / values:14.1f}")
    print(f"  {'Studio, all':46s} {studio_total / 1e6:8.1f} {studio_total / values:14.1f}")
    print(f"  {'TensorBoard event files (the same values)':46s} {events / 1e6:8.1f} {events / values:14.1f}")
    print(f"  one run through SummaryWriter: {real:,} bytes; the same run's file here: {one_run:,} bytes")
    print(f"Studio is {studio_total / events:.1f}× TensorBoard's bytes; the issue's target is ≤ 1× and "
          f"≥ 5× smaller than today (≤ {studio_total / values / 5:.0f} bytes a value)")
    assert abs(real - one_run) < 1024  # the generator's records are the real writer's
