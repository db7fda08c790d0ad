"""A finished study without training anything: Optuna's ask-and-tell over Studio's storage with a known objective
(best near lr = 0.01; batch size matters little), some trials pruned after reporting, as ``studio search`` leaves
one. For the Search view's tests and screenshots."""

from __future__ import annotations

import math
from pathlib import Path

from studio.core.config import RunConfig
from studio.core.search.driver import RUN_ID
from studio.core.search.space import parse_space
from studio.core.search.study import SearchSpec, create_or_continue

BASE = RunConfig().with_overrides(["data.name=moons"])
SPACE = ["optimizer.lr=1e-4..1e-1:log", "train.batch_size=32,64,128"]


def objective(lr: float, batch: int) -> float:
    """Validation accuracy peaking at lr = 0.01, a little better with smaller batches."""
    return 0.95 - 0.08 * (math.log10(lr) + 2) ** 2 - 0.01 * math.log2(batch / 32)


def make_study(home: Path, name: str = "lr-batch", trials: int = 16) -> SearchSpec:
    spec = SearchSpec(name, parse_space(SPACE, BASE), BASE, sampler="tpe", pruner="asha", trials=trials)
    study, _ = create_or_continue(home, spec)
    dists = spec.space.distributions()
    for i in range(trials):
        trial = study.ask(dists)
        value = objective(trial.params["optimizer.lr"], trial.params["train.batch_size"])
        trial.set_user_attr(RUN_ID, f"run{i:03d}")
        for epoch in (1, 2):
            trial.report(value - 0.1 / epoch, epoch)
        if i % 3 == 2:  # every third trial stopped early (as a pruner would stop the bad ones)
            study.tell(trial, state=_pruned())
        else:
            study.tell(trial, value)
    return spec


def _pruned():
    import optuna

    return optuna.trial.TrialState.PRUNED
