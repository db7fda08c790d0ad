"""What the queue costs: N tiny runs through `studio queue run` against the same N runs as back-to-back
`studio train` calls, side by side; plus the gaps between one queued run's end and the next one's start.

Run: ``python -m pytest tests/benchmarks/test_queue_overhead.py -m benchmark -s``
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time

import pytest

from studio.core.runs.queue import RunQueue
from studio.core.runs.store import RunStore
from tests.conftest import TINY_CONFIG

N = 3


def studio(*args: str, env: dict[str, str]) -> None:
    subprocess.run([sys.executable, "-m", "studio", *args], check=True, capture_output=True, env=env, timeout=600)


@pytest.mark.benchmark
def test_queue_against_back_to_back_train(tmp_path):
    config = tmp_path / "tiny.toml"
    config.write_text(TINY_CONFIG)
    direct_env = dict(os.environ, STUDIO_HOME=str(tmp_path / "direct"))
    queue_env = dict(os.environ, STUDIO_HOME=str(tmp_path / "queued"))
    t0 = time.perf_counter()
    for i in range(N):
        studio("train", "--config", str(config), "--set", f"train.seed={i}", "--quiet", env=direct_env)
    direct = time.perf_counter() - t0
    for i in range(N):
        studio("queue", "add", "--config", str(config), "--set", f"train.seed={i}", "--no-start", env=queue_env)
    timings = {}
    for mode in ("--cold", "warm"):
        env = dict(queue_env, STUDIO_HOME=str(tmp_path / mode))
        for i in range(N):
            studio("queue", "add", "--config", str(config), "--set", f"train.seed={i}", "--no-start", env=env)
        t0 = time.perf_counter()
        studio("queue", "run", "--idle-exit", "0", *([mode] if mode == "--cold" else []), env=env)
        timings[mode] = time.perf_counter() - t0
        entries = sorted(RunQueue(RunStore(tmp_path / mode)).entries(include_over=True), key=lambda e: e.started)
        assert all(e.status == "finished" for e in entries)
        gaps = [b.started - a.ended for a, b in zip(entries, entries[1:], strict=False)]
        timings[mode + " gap"] = statistics.median(gaps)
    print(f"\n{N} tiny CPU runs: back-to-back `studio train` {direct:.1f} s; `studio queue run --cold` "
          f"{timings['--cold']:.1f} s (×{timings['--cold'] / direct:.2f}); `studio queue run` (warm back end) "
          f"{timings['warm']:.1f} s (×{timings['warm'] / direct:.2f}); a run's end → the next one's start: "
          f"median {timings['warm gap'] * 1000:.0f} ms")
