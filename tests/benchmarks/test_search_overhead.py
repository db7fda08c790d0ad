"""Issue 36: what the search adds to each trial beyond training it — Optuna's bookkeeping in Studio's SQLite
storage (``search.db``): ask a trial from the space (TPE, ASHA), report the metric at each of ``EPOCHS`` epoch ends
with a pruning decision, tell the outcome. Side by side with Optuna's in-memory storage (no file). The driver
also reads the run store every ``POLL_S`` s, so a trial's end is noticed within that. The load average is printed
beside (a shared machine).

Run: ``python -m pytest tests/benchmarks/test_search_overhead.py -m benchmark -s``
"""

from __future__ import annotations

import os
import time

import pytest

from studio.core.config import RunConfig
from studio.core.search.driver import POLL_S
from studio.core.search.space import parse_space
from studio.core.search.study import SearchSpec, create_or_continue, make_pruner, make_sampler

TRIALS, EPOCHS = 30, 10
BASE = RunConfig().with_overrides(["data.name=moons"])


def per_trial(study, spec: SearchSpec) -> float:
    dists = spec.space.distributions()
    started = time.perf_counter()
    for i in range(TRIALS):
        trial = study.ask(dists)
        for epoch in range(1, EPOCHS + 1):
            trial.report(0.5 + 0.04 * epoch - 0.001 * i, epoch)
            if trial.should_prune():
                break
        study.tell(trial, 0.9 - 0.001 * i)
    return (time.perf_counter() - started) / TRIALS * 1000


@pytest.mark.benchmark
def test_the_search_adds_milliseconds_per_trial(tmp_path) -> None:
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    spec = SearchSpec("bench", parse_space(["optimizer.lr=1e-4..1e-1:log", "train.batch_size=32,64,128"], BASE),
                      BASE, sampler="tpe", pruner="asha", trials=TRIALS)
    stored, _ = create_or_continue(tmp_path, spec)
    on_disk = per_trial(stored, spec)
    memory = optuna.create_study(sampler=make_sampler(spec), pruner=make_pruner(spec), direction="maximize")
    in_memory = per_trial(memory, spec)
    print(f"\n{TRIALS} trials × {EPOCHS} epoch reports, TPE + ASHA, load {os.getloadavg()[0]:.1f}")
    print(f"  search.db (SQLite) {on_disk:6.1f} ms per trial; in memory {in_memory:6.1f} ms; "
          f"a trial's end is noticed within {POLL_S * 1000:.0f} ms")
    assert on_disk < 1000  # well under a second per trial: nothing beside a trial's own minutes of training
