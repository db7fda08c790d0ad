"""CPU inference latency of the default run before and after compression, side by side (issue 15: measured
here, never asserted in the tests). Run with ``pytest -m benchmark -s tests/benchmarks/test_compression_speed.py``.

Each line is one ``compress_run``: it measures the original and the compressed model in the same call
(median of 30 single-example and 5 batch-of-256 forward passes, one thread), so a change in the machine's load
hits both columns alike; compare ratios, not absolute times.
"""

from __future__ import annotations

import os

import pytest

from studio.core.config import RunConfig
from studio.core.runs.store import RunStore
from studio.engine.training.launcher import launch

VARIANTS = ({"prune_amount": 0.5}, {"quantize": "int8"}, {"prune_amount": 0.5, "quantize": "int8"},
            {"prune_amount": 0.5, "structured": True})


@pytest.mark.benchmark
def test_compression_latency_before_and_after(tmp_path):
    from studio.engine.tasks.compression import compress_run

    job = launch(RunConfig(), RunStore(tmp_path))
    assert job.wait(timeout=900) == "finished", job.errors
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"\ndefault run (MLP 512-512, bundled Fashion-MNIST), load average {load:.1f}")
    print(f"{'variant':<34} {'acc before':>10} {'acc after':>9} {'size ÷':>7} {'1 ex. ms':>17} {'batch 256 ms':>17}")
    for kw in VARIANTS:
        e = compress_run(job.run_dir, save=False, **kw)
        b, a = e["before"], e["after"]
        name = ", ".join(f"{k}={v}" for k, v in kw.items())
        print(f"{name:<34} {b['test_acc']:>10.4f} {a['test_acc']:>9.4f} {e['size_ratio']:>7.2f} "
              f"{b['latency_ms']:>7.3f} → {a['latency_ms']:<7.3f} {b['batch256_ms']:>7.2f} → {a['batch256_ms']:<7.2f}")
        assert a["latency_ms"] > 0 and a["batch256_ms"] > 0  # measured; the speed itself is not asserted
