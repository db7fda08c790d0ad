"""Ring all-reduce against a central server, with torch's own all_reduce as the baseline measured in the same
run: per algorithm, p and size, the bytes each rank sent ÷ N beside the cost model (2(p−1)/p for the ring, p−1 at
the server's rank 0), the slowest rank's wall time and the busiest rank's CPU time (medians of 5 after a warm-up),
and their ratio to torch's. Run: ``nice -n 5 python -m pytest tests/benchmarks/test_ring_allreduce.py -m benchmark
-s``."""

from __future__ import annotations

import os

import pytest

from studio.core.contracts.allreduce import AllreduceRequest, size_text
from studio.engine.allreduce.launch import run_allreduce

pytestmark = pytest.mark.benchmark


def test_ring_server_and_torch_side_by_side() -> None:
    request = AllreduceRequest(ranks=(2, 3, 4, 6, 8), sizes=(1 << 20, 16 << 20), repeats=5)
    load_before = os.getloadavg()[0]
    out = run_allreduce(request)
    rows = {(r["algorithm"], r["ranks"], r["size"]): r for r in out["rows"]}
    print(f"\n{out['cores']} cores, load average {load_before:.1f} before and {out['load']:.1f} after; gloo, one "
          f"thread per process; medians of {request.repeats} after a warm-up")
    print(f"{'algorithm':<7} {'p':>2} {'N':>4} {'max sent÷N':>10} {'model':>6} {'wall ms':>8} {'÷ torch':>8} "
          f"{'CPU ms':>7} {'÷ torch':>8}")
    for (algorithm, p, n), r in rows.items():
        base = rows[("torch", p, n)]
        wall, cpu = max(r["wall_s"]), max(r["cpu_s"])
        sent = f"{max(r['sent']) / n:.3f}" if r["sent"] else "—"
        model = f"{max(r['model']) / n:.3f}" if r["model"] else "—"
        print(f"{algorithm:<7} {p:>2} {size_text(n):>4} {sent:>10} {model:>6} {1000 * wall:>8.1f} "
              f"{wall / max(base['wall_s']):>7.2f}× {1000 * cpu:>7.1f} {cpu / max(base['cpu_s']):>7.2f}×")
    assert all(r["max_error"] == 0 for r in out["rows"])
