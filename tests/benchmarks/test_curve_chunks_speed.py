"""Issue 40, item 1: the cold and live cases of reading long runs. A store of RUNS runs × STEPS steps × 4 metrics
is written through the real ``RunStore.log_metrics`` in a training run's batches (``CALL_STEPS`` steps a call) and
left *running*: no run is packed. Then, side by side in one process:

- write cost: ``log_metrics`` with its curve chunk (core/runs/curve_chunks.py) against the same calls without it;
- live: ``curves()`` of the RUNS runs from their chunks, against the plain row query (what a live run, an imported
  one and every run of an old store were read as before: the issue's 24 s for 50 × 20k);
- old store: the chunks dropped (a store from before them), ``convert_curves`` in one go (the background
  conversion), then read;
- packed: the runs ended and packed (``write_curve_cache``), read as before.

Run: ``nice -n 5 python -m pytest tests/benchmarks/test_curve_chunks_speed.py -m benchmark -s``
(``STUDIO_BENCH_RUNS`` / ``STUDIO_BENCH_STEPS`` change the 50 × 20,000.)
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from studio.core.config import RunConfig
from studio.core.runs import curve_cache, curve_chunks
from studio.core.runs.store import RunStore

RUNS = int(os.environ.get("STUDIO_BENCH_RUNS", "50"))
STEPS = int(os.environ.get("STUDIO_BENCH_STEPS", "20000"))
NAMES = ("train/loss", "train/acc", "lr", "throughput")
CALL_STEPS = 50  # steps per log_metrics call (the sink drains its queue in batches)


def batches(seed: int) -> list[list[tuple[int, str, float, float]]]:
    rng = np.random.default_rng(seed)
    loss = 2.3 * np.exp(-np.arange(STEPS) / (STEPS / 4)) + 0.1 * rng.normal(size=STEPS) ** 2
    out = []
    for start in range(0, STEPS, CALL_STEPS):
        out.append([(s, name, float(v), 1.7e9 + 0.05 * s) for s in range(start, min(STEPS, start + CALL_STEPS))
                    for name, v in zip(NAMES, (loss[s], 1 - loss[s] / 2.5, 1e-3, 5000.0), strict=True)])
    return out


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def plain_read(store: RunStore, ids: list[str]) -> dict:
    sql, args = curve_cache.rows_query(ids, None)
    return curve_cache.gather(store._db.execute(sql, args))


def same(got: dict, want: dict) -> bool:
    return sum(len(m) for m in got.values()) == len(want) and all(
        np.array_equal(got[r][n].values, c.values, equal_nan=True) and np.array_equal(got[r][n].steps, c.steps)
        for (r, n), c in want.items())


@pytest.mark.benchmark
@pytest.mark.timeout(1800)  # 3–4 minutes under load at 50 × 20k
def test_live_and_old_runs_read_like_packed_ones(tmp_path, monkeypatch):
    store = RunStore(tmp_path / "store")
    ids, with_chunk, without = [], 0.0, 0.0
    bare = RunStore(tmp_path / "bare")
    for r in range(RUNS):
        run, other = store.create_run(RunConfig(), f"run {r}"), bare.create_run(RunConfig(), f"run {r}")
        store.set_status(run.id, "running")
        ids.append(run.id)
        for rows in batches(r):
            with_chunk += timed(lambda rows=rows, run=run: store.log_metrics(run.id, rows))[0]
            with monkeypatch.context() as m:  # the same call, no chunk: the write cost before
                m.setattr(curve_chunks, "ensure", lambda *a: None)
                m.setattr(curve_chunks, "append", lambda *a: None)
                without += timed(lambda rows=rows, other=other: bare.log_metrics(other.id, rows))[0]
    calls = RUNS * len(batches(0))
    print(f"\nload average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; {RUNS} runs × {STEPS} steps × "
          f"{len(NAMES)} metrics, {calls} log_metrics calls of {CALL_STEPS} steps")
    print(f"write: {with_chunk:.1f} s with chunks vs {without:.1f} s without (×{with_chunk / without:.2f}); "
          f"{with_chunk / calls * 1000:.2f} vs {without / calls * 1000:.2f} ms a call")
    chunks = store._db.execute("SELECT count(*), sum(length(steps) + length(vals) + length(walls) + "
                               "length(name_ix)) FROM curve_chunks").fetchone()
    print(f"chunks: {chunks[0]} rows for {RUNS} runs, {chunks[1] / RUNS / STEPS / len(NAMES):.1f} bytes a value")

    rows_s, want = timed(lambda: plain_read(store, ids))
    live_s, got = timed(lambda: store.curves(ids))
    assert same(got, want)
    print(f"live, {RUNS} runs: rows {rows_s:.2f} s → chunks {live_s:.2f} s (×{rows_s / live_s:.0f})")

    for run_id in ids:  # an old store: rows only
        curve_chunks.forget(store._db, run_id)
    store._db.commit()
    convert_s, n = timed(lambda: store.convert_curves())
    assert n == RUNS
    old_s, got = timed(lambda: store.curves(ids))
    assert same(got, want)
    print(f"old store: converted in {convert_s:.2f} s ({convert_s / RUNS * 1000:.0f} ms a run, in the background); "
          f"then read in {old_s:.2f} s")

    for run_id in ids:
        store.set_status(run_id, "finished")
        store.write_curve_cache(run_id)
    packed_s, got = timed(lambda: store.curves(ids))
    assert same(got, want)
    print(f"packed (ended): read in {packed_s:.2f} s")
    print("target: a live or old run reads like a packed one (before: rows, 24.2 s for 50 × 20k)")
