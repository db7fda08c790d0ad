"""Issue 36: compute saved by ASHA against the same trials run to the end, on real runs. The same 12 random
configurations (the random sampler's seed) of a small MLP on noisy moons, 9 epochs each, searched twice through the
queue: with ``--pruner asha`` and with ``--pruner none``. Printed: epochs trained, wall time, the best validation
accuracy each found, and the load average (a shared machine).

Run: ``python -m pytest tests/benchmarks/test_search_asha_saving.py -m benchmark -s``
"""

from __future__ import annotations

import os
import time

import pytest

from tests.conftest import last_json, run_cli
from tests.integration.test_search_cli import MOONS

TRIALS = 12


@pytest.mark.benchmark
def test_asha_trains_a_fraction_of_the_epochs_for_about_the_same_best(studio_home) -> None:
    out = {}
    for pruner in ("asha", "none"):
        started = time.perf_counter()
        proc = run_cli("search", *MOONS, "--space", "optimizer.lr=1e-5..3", "--sampler", "random", "--seed", "7",
                       "--pruner", pruner, "--study", pruner, "--trials", str(TRIALS), "--json", timeout=1800)
        assert proc.returncode == 0, proc.stderr
        out[pruner] = last_json(proc.stdout) | {"wall_s": time.perf_counter() - started}
    print(f"\n{TRIALS} trials × 9 epochs, the same configurations, load {os.getloadavg()[0]:.1f}")
    for pruner, r in out.items():
        print(f"  {pruner:5s} epochs {r['epochs_trained']:4d} of {r['epochs_full']:4d} "
              f"({r['compute_fraction']:.0%}), wall {r['wall_s']:6.1f} s, pruned {r['pruned']:2d}, "
              f"best val/acc {r['best_value']:.4f}")
    assert out["asha"]["epochs_trained"] < out["none"]["epochs_trained"]
