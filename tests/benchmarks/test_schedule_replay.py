"""What the scheduling simulator costs: the replay of 10,000 jobs of the heavy-tailed trace on 64 simulated GPUs
under each policy, side by side (seconds, events handled per second, and each policy's mean JCT against FIFO's),
at a load the cluster keeps up with (0.9) and in a burst (2×: a queue of thousands builds up).

Run: ``python -m pytest tests/benchmarks/test_schedule_replay.py -m benchmark -s``
"""

from __future__ import annotations

import time

import pytest

from studio.core.scheduling.policies import NAMES, make_policy
from studio.core.scheduling.replay import replay
from studio.core.scheduling.stats import summarise
from studio.core.scheduling.study import default_quantum
from studio.core.scheduling.traces import heavy_tailed

JOBS, GPUS = 10_000, 64


@pytest.mark.benchmark
@pytest.mark.parametrize("load", [0.9, 2.0])
def test_replay_of_10000_jobs_on_64_gpus(load: float) -> None:
    jobs = heavy_tailed(n=JOBS, gpus=GPUS, load=load, seed=1)
    quantum = default_quantum(jobs)
    rows = []
    for name in NAMES:
        started = time.perf_counter()
        schedule = replay(jobs, GPUS, make_policy(name, quantum=quantum))
        seconds = time.perf_counter() - started
        stats = summarise(schedule)
        slices = sum(len(p.intervals) for p in schedule.placed)
        rows.append((name, seconds, slices, stats["mean_jct"]))
    fifo_s, fifo_jct = rows[0][1], rows[0][3]
    print(f"\n{JOBS} jobs on {GPUS} GPUs, load {load}, LAS quantum {quantum:.0f} s")
    print(f"{'policy':<6} {'replay s':>9} {'× FIFO':>7} {'slices':>7} {'mean JCT h':>11} {'FIFO ÷ it':>10}")
    for name, seconds, slices, jct in rows:
        print(f"{name:<6} {seconds:>9.2f} {seconds / fifo_s:>6.1f}× {slices:>7} {jct / 3600:>11.2f} "
              f"{fifo_jct / jct:>9.2f}×")
    assert all(seconds < 60 for _, seconds, _, _ in rows)  # a replay the page runs in the background, still quick
