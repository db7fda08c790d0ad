"""Reading a selection of long runs: the plain row query against the packed curve cache (core/runs/curve_cache.py).

A store of RUNS runs × STEPS steps × 4 metrics is written through the real ``RunStore.log_metrics`` (big batches)
in a temp dir; then the 50-run selection is read (a) with the plain row query into numpy columns (what
``RunStore.curves`` did before the cache), (b) with ``curves()`` the first time (it packs each ended run's cache),
(c) with ``curves()`` from the cache, (d) with ``curve_overviews()`` (a first draw). Time (best of REPEAT) and
Python peak memory (tracemalloc, numpy included), side by side. Warm OS page cache throughout.

Run: ``nice -n 5 python -m pytest tests/benchmarks/test_curve_store_speed.py -m benchmark -s``
(``STUDIO_BENCH_RUNS`` / ``STUDIO_BENCH_STEPS`` make the store smaller.)
"""

from __future__ import annotations

import os
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from studio.core.config import RunConfig
from studio.core.runs import curve_cache
from studio.core.runs.store import RunStore

RUNS = int(os.environ.get("STUDIO_BENCH_RUNS", "50"))
STEPS = int(os.environ.get("STUDIO_BENCH_STEPS", "20000"))
NAMES = ("train/loss", "train/acc", "val/loss", "lr")
BATCH_STEPS = 5_000  # steps per log_metrics call
REPEAT = 3


def write_store(store: RunStore) -> list[str]:
    rng = np.random.default_rng(0)
    ids = []
    for r in range(RUNS):
        run = store.create_run(RunConfig(), f"run {r}")
        store.set_status(run.id, "running")
        for start in range(0, STEPS, BATCH_STEPS):
            steps = range(start, min(STEPS, start + BATCH_STEPS))
            noise = rng.normal(size=(len(steps), len(NAMES)))
            store.log_metrics(run.id, [(s, name, float(1.0 / (s + 1) + noise[i, k]), 1.7e9 + s)
                                       for i, s in enumerate(steps) for k, name in enumerate(NAMES)])
        store.set_status(run.id, "finished")  # no cache yet: the first curves() makes it
        ids.append(run.id)
    return ids


def plain_read(store: RunStore, ids: list[str]) -> dict:
    sql, args = curve_cache.rows_query(ids, list(NAMES))
    return curve_cache.gather(store._db.execute(sql, args))


def measure(fn: Callable[[], Any], repeat: int = REPEAT) -> tuple[float, float, Any]:
    """Best time (s) and peak traced memory (MB) of ``fn`` (memory from a separate run under tracemalloc)."""
    best = float("inf")
    result = None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t)
        del result
    tracemalloc.start()
    result = fn()
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return best, peak, result


@pytest.mark.benchmark
def test_plain_rows_against_the_packed_cache(tmp_path):
    store = RunStore(tmp_path)
    t = time.perf_counter()
    ids = write_store(store)
    written = time.perf_counter() - t
    size = sum(p.stat().st_size for p in tmp_path.glob("runs.db*")) / 2**20
    print(f"\nstore: {RUNS} runs × {STEPS:,} steps × {len(NAMES)} metrics = {RUNS * STEPS * len(NAMES):,} rows, "
          f"written in {written:.1f} s; runs.db {size:.0f} MB")

    t_plain, m_plain, rows = measure(lambda: plain_read(store, ids))
    t = time.perf_counter()
    store.curves(ids, NAMES)  # packs the 50 caches
    t_first = time.perf_counter() - t
    store._db.execute("DELETE FROM curve_cache")
    store._db.commit()
    _, m_first, _ = measure(lambda: store.curves(ids, NAMES), repeat=0)  # again, for its memory
    size_after = sum(p.stat().st_size for p in tmp_path.glob("runs.db*")) / 2**20
    t_cache, m_cache, curves = measure(lambda: store.curves(ids, NAMES))
    t_over, m_over, overviews = measure(lambda: store.curve_overviews(ids, NAMES))
    t_one, _, _ = measure(lambda: store.curves(ids[:1], NAMES))
    every = curve_cache.cached_runs(store._db, ids)[0]  # what the ``appended`` flag saves: searching every run
    t_tails, _, _ = measure(lambda: curve_cache.tails(store._db, every, NAMES))

    for (run_id, name), cols in rows.items():  # the same answer
        assert np.array_equal(cols.steps, curves[run_id][name].steps)
        assert np.array_equal(cols.values, curves[run_id][name].values)
    points = sum(len(c) for r in overviews.values() for c in r.values())
    print(f"{'read of ' + str(len(ids)) + ' runs':<34}{'time':>10}{'× plain':>10}{'peak MB':>10}")
    for label, secs, mem in (("plain row query → numpy", t_plain, m_plain),
                             ("curves(), first (packs caches)", t_first, m_first),
                             ("curves() from the cache", t_cache, m_cache),
                             ("curve_overviews() (first draw)", t_over, m_over)):
        print(f"{label:<34}{secs:>9.3f}s{t_plain / secs:>9.1f}×{mem:>10.1f}")
    print(f"curves() of 1 run from the cache: {t_one * 1000:.1f} ms; overview points: {points:,} "
          f"(of {RUNS * STEPS * len(NAMES):,}); runs.db with caches {size_after:.0f} MB")
    print(f"searching every cached run for rows logged after its cache (what the appended flag saves): "
          f"{t_tails * 1000:.1f} ms")
    assert t_cache < t_plain
