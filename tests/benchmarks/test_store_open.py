"""What registering the run folders a database lacks costs every store open (issue 39.1: a missing or half-rebuilt
runs.db gets its runs back): opening a store of N runs as ``RunStore`` does now (the database, then one listing of
``runs/`` against its ids) beside the open alone (the database only, as before), interleaved in one run.

Run: ``python -m pytest tests/benchmarks/test_store_open.py -m benchmark -s``
"""

from __future__ import annotations

import os
import statistics
import time

import pytest


@pytest.mark.benchmark
@pytest.mark.parametrize("runs", [200, 2000])
def test_store_open_with_and_without_the_folder_check(tmp_path, runs):
    from studio.core.config import RunConfig
    from studio.core.runs.db import connect
    from studio.core.runs.store import RunStore

    store = RunStore(tmp_path)
    cfg = RunConfig()
    for i in range(runs):
        store.create_run(cfg, run_id=f"20250101-000000-{i:08x}")
    store.close()
    now, before = [], []
    for _ in range(15):
        t = time.perf_counter()
        RunStore(tmp_path).close()
        now.append(time.perf_counter() - t)
        t = time.perf_counter()
        connect(tmp_path / "runs.db", tmp_path / "runs", reconcile=False).close()
        before.append(time.perf_counter() - t)
    a, b = statistics.median(now) * 1000, statistics.median(before) * 1000
    print(f"\n{runs:,} runs: open with the folder check {a:.1f} ms, database only {b:.1f} ms "
          f"(+{a - b:.1f} ms, ×{a / b:.2f}); load average {os.getloadavg()[0]:.1f}")
