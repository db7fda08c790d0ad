"""Async vs sync SGD on a parameter server (``studio async``), with and without a straggler, measured side by side
in one run: updates per second, the loss at equal wall time, and the loss at sync's number of updates, for sync,
async, async with the staleness-aware rate, and Hogwild.

Each case is one ``engine/async_sgd.launch.study`` (3 workers, batch 32, lr 0.1, ``STUDIO_BENCH_ASYNC_SECONDS``
seconds per mode, default 3): no straggler (delays 0,0,0), then a straggler (0,0,0.05). Run:
``nice -n 5 python -m pytest tests/benchmarks/test_async_sgd.py -m benchmark -s``.
"""

from __future__ import annotations

import os

import pytest

from studio.core.contracts.async_sgd import AsyncRequest
from studio.engine.async_sgd.check import loss_at
from studio.engine.async_sgd.launch import study

SECONDS = float(os.environ.get("STUDIO_BENCH_ASYNC_SECONDS", "3"))
CASES = (("no straggler", (0.0, 0.0, 0.0)), ("straggler 0.05 s", (0.0, 0.0, 0.05)))


def measure(delays: tuple[float, ...]) -> dict:
    return study(AsyncRequest(workers=3, batch_size=32, lr=0.1, updates=0, seconds=SECONDS, delays=delays,
                              staleness_aware=True, modes=("sync", "async", "hogwild")))


def table(results: dict[str, dict]) -> str:
    lines = [f"{'case':<17} {'mode':<9} {'updates/s':>9} {'× sync':>7} {'loss@T':>7} {'÷ sync':>7} "
             f"{'loss@U':>7} {'mean τ':>6} {'test acc':>8}"]
    for case, out in results.items():
        rows = {r["mode"]: r for r in out["rows"]}
        sync = rows["sync"]
        t = min(r["seconds"] for r in rows.values())
        u = sync["updates"]
        base_t = loss_at(sync["curve"], "seconds", t)
        for r in out["rows"]:
            at_t = loss_at(r["curve"], "seconds", t)
            lines.append(f"{case:<17} {r['mode']:<9} {r['updates_per_s']:>9.1f} "
                         f"{r['updates_per_s'] / sync['updates_per_s']:>6.1f}× {at_t:>7.3f} {at_t / base_t:>7.2f} "
                         f"{loss_at(r['curve'], 'update', u):>7.3f} {r['mean_staleness']:>6.2f} "
                         f"{r['test_acc']:>8.1%}")
    lines.append(f"T = {SECONDS:g} s per mode (loss@T: at the shortest mode's end), U = sync's updates (loss@U); "
                 f"{os.cpu_count()} CPU cores, load average {os.getloadavg()[0]:.1f}")
    return "\n".join(lines)


@pytest.mark.benchmark
def test_async_against_sync_with_and_without_a_straggler():
    results = {case: measure(delays) for case, delays in CASES}
    print("\n" + table(results))
    straggler = {r["mode"]: r for r in results["straggler 0.05 s"]["rows"]}
    assert straggler["async"]["updates_per_s"] > straggler["sync"]["updates_per_s"]


if __name__ == "__main__":
    print(table({case: measure(delays) for case, delays in CASES}))
