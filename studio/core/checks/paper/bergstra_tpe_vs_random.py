"""TPE finds a better configuration than random search with the same number of trials (Bergstra et al. 2011)."""

from __future__ import annotations

import math
from typing import Any

from studio.core.checks.base import METHOD_CHECK, Measure, PaperCheck, Reproduction

CHECK = PaperCheck(
    name="bergstra_tpe_vs_random",
    claim="With the same number of trials, the Tree-structured Parzen Estimator finds a better configuration than "
          "random search: it samples where good trials were.",
    paper="Bergstra, Bardenet, Bengio & Kégl, Algorithms for Hyper-Parameter Optimization, NeurIPS 2011",
    paper_setup="Deep belief networks, 32 hyperparameters: TPE's best error after 200 trials beat random search's "
                "(and a Gaussian process's) on convex and MRBI.",
    our_setup="A known 4-setting landscape shaped like a training run's (log learning rate, momentum, log weight "
              "decay, batch size in 16…256; its minimum known), Optuna's TPESampler against its RandomSampler, 60 "
              "trials each, over 20 seeds (paired: both start from the seed's random trials): the mean best value "
              "(the regret above the minimum) and how often TPE wins. Scaled down: a function in place of training,"
              " so that 1,200 trials take seconds.",
    kind=METHOD_CHECK,
    runner="studio.core.checks.paper.bergstra_tpe_vs_random:run",
    budget_s=60.0,
)

BATCHES = (16, 32, 64, 128, 256)


def landscape(params: dict[str, Any], shift: float = 0.0) -> float:
    """The regret of a configuration (0 at the optimum: lr 5e-3, momentum 0.9, weight decay 1e-4, batch 64);
    ``shift`` moves the optimum's learning rate by that many decades (the held-out landscape)."""
    lr, momentum = math.log10(params["lr"]), params["momentum"]
    wd, batch = math.log10(params["weight_decay"]), math.log2(params["batch_size"])
    return ((lr + 2.3 - shift) ** 2 + 4 * (momentum - 0.9) ** 2 + 0.25 * (wd + 4) ** 2 + 0.1 * (batch - 6) ** 2
            + 0.5 * abs(lr + 2.3 - shift) * abs(momentum - 0.9))  # lr and momentum interact


def best_of(sampler: str, seed: int, trials: int, shift: float) -> float:
    """The best regret one search finds in ``trials`` trials."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    made = (optuna.samplers.TPESampler(seed=seed) if sampler == "tpe"
            else optuna.samplers.RandomSampler(seed=seed))
    study = optuna.create_study(sampler=made, direction="minimize")

    def objective(trial: Any) -> float:
        return landscape({"lr": trial.suggest_float("lr", 1e-5, 1.0, log=True),
                          "momentum": trial.suggest_float("momentum", 0.0, 0.99),
                          "weight_decay": trial.suggest_float("weight_decay", 1e-6, 1e-1, log=True),
                          "batch_size": trial.suggest_categorical("batch_size", BATCHES)}, shift)

    study.optimize(objective, n_trials=trials)
    return float(study.best_value)


def run(progress: Any = None, trials: int = 60, seeds: int = 20, first_seed: int = 0, shift: float = 0.0,
        sampler: str = "tpe") -> Reproduction:
    """``sampler``: the method under test against random search (``random`` here makes the check fail: no better
    than itself); ``shift``/``first_seed``: a held-out landscape and seeds."""
    tpe, rnd = [], []
    for i, seed in enumerate(range(first_seed, first_seed + seeds)):
        tpe.append(best_of(sampler, seed, trials, shift))
        rnd.append(best_of("random", seed, trials, shift))  # paired: TPE's first 10 trials are this seed's too
        if progress is not None:
            progress((i + 1) / seeds, f"seed {seed}: {sampler} {tpe[-1]:.3g}, random {rnd[-1]:.3g}")
    mean_tpe, mean_rnd = sum(tpe) / seeds, sum(rnd) / seeds
    wins = sum(t < r for t, r in zip(tpe, rnd, strict=True)) / seeds
    measures = (
        Measure.at_most(f"mean best regret, {sampler} ÷ random ({trials} trials, {seeds} seeds)",
                        mean_tpe / mean_rnd if mean_rnd > 0 else None, 0.6, "TPE lower than random"),
        Measure.at_least(f"share of seeds where {sampler} beats random", wins, 0.75, "TPE better on each data set"),
    )
    return Reproduction(measures, {"tpe": tpe, "random": rnd, "trials": trials})
