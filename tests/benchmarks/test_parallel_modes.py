"""One model four ways, measured side by side in one run on 2 rank processes: the five modes' samples/s and their
ratio to the single process, and the pipeline's bubble at M = 1, 2, 4, 8 (GPipe and 1F1B) beside the theory
(p−1)/(m+p−1), with the activations each first stage keeps. Run: `pytest -m benchmark -s
tests/benchmarks/test_parallel_modes.py`."""

from __future__ import annotations

import os

import pytest

from studio.core.contracts.parallel import ParallelRequest
from studio.engine.parallel.checks import median_bubble
from studio.engine.parallel.launch import run_parallel

pytestmark = pytest.mark.benchmark


def test_five_modes_and_the_bubble_against_theory() -> None:
    # the paper check's MLP: two stages with equal forwards and backwards, a batch worth splitting 8 ways
    request = ParallelRequest(ranks=2, microbatches=(1, 2, 4, 8), batch_size=2048, widths=(64, 2048, 1024, 2048),
                              steps=8, warmup_steps=2, timeline_steps=6)
    out = run_parallel(request)
    rows = out["rows"]
    base = rows[0]["samples_per_s"]
    load = os.getloadavg()[0]
    print(f"\n2 ranks, MLP 784-{'-'.join(map(str, request.widths))}-10 (stages {out['stages']}), global batch "
          f"{request.batch_size}, {request.steps} steps ({request.warmup_steps} warm-up), 1 thread per process; "
          f"load average after the run {load:.1f} on {out['cores']} cores")
    print(f"{'mode':<15} {'M':>2} {'samples/s':>10} {'×single':>8} {'bubble':>7} {'median':>7} {'theory':>7} "
          f"{'loss gap':>9} {'act. r0 KiB':>11} {'act. r1 KiB':>11} {'CPU share':>10}")
    for r in rows:
        bubble = f"{r['bubble']:.2f}" if r["bubble"] is not None else "—"
        median = f"{median_bubble(r):.2f}" if r["bubble"] is not None else "—"
        theory = f"{r['bubble_theory']:.2f}" if r["bubble_theory"] is not None else "—"
        acts = [f"{m['activations'] / 1024:,.0f}" for m in r["memory"]] + ["—"]
        print(f"{r['mode']:<15} {r['microbatches']:>2} {r['samples_per_s']:>10,.0f} {r['samples_per_s'] / base:>7.2f}× "
              f"{bubble:>7} {median:>7} {theory:>7} {r['max_loss_gap']:>9.1e} {acts[0]:>11} {acts[1]:>11} "
              f"{'/'.join(f'{c:.2f}' for c in r['cpu_share'] if c is not None):>10}")
    for note in out.get("notes", []):
        print("note:", note)
    assert out["equal_curves"]
    assert len(rows) == 1 + 1 + 1 + 4 + 3
