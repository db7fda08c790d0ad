"""ASHA finds the best configuration of a random-search set with a fraction of the compute (Li et al. 2020)."""

from __future__ import annotations

import math
import random
from typing import Any, Literal

from studio.core.checks.base import METHOD_CHECK, Measure, PaperCheck, Reproduction

CHECK = PaperCheck(
    name="li_asha_compute",
    claim="Asynchronous successive halving stops the trials that are behind at each rung, and still ends with the "
          "best configuration of the set, at a fraction of the epochs that training every trial to the end takes.",
    paper="Li, Jamieson, Rostamizadeh, Gonina, Ben-tzur, Hardt, Recht & Talwalkar, A System for Massively Parallel "
          "Hyperparameter Tuning (ASHA), MLSys 2020",
    paper_setup="CIFAR-10 small CNN benchmarks: ASHA reaches a test error as good as random search's best in a "
                "fraction of its time (η = 4; random search trains every configuration to R).",
    our_setup="81 random configurations (a log learning rate, a width) with learning curves of a known shape — a "
              "fast rate learns quickly and ends lower, so curves cross — and noise of 0.005, over 27 epochs; "
              "Optuna's SuccessiveHalvingPruner (rungs at 3, 9, 27 epochs: η = 3) through ask-and-tell, reported "
              "each epoch, against the same 81 trained to the end. Measured: the true (noise-free) final accuracy "
              "of the best trial ASHA trains to the end, against the set's best and the epochs it trains ÷ 81 × 27."
              " Scaled down: curves in place of training.",
    kind=METHOD_CHECK,
    runner="studio.core.checks.paper.li_asha_compute:run",
    budget_s=60.0,
)


def curve(lr: float, width: int, epoch: int, noise: random.Random | None) -> float:
    """Validation accuracy after ``epoch`` epochs: approaches a final accuracy that peaks at lr = 10⁻² (and grows a
    little with the width) at a pace that grows with the rate."""
    final = 0.95 - 0.06 * (math.log10(lr) + 2) ** 2 + 0.01 * math.log2(width / 32)
    pace = 2.0 / (lr * 100) ** 0.5  # epochs to close 63 % of the gap
    return final - (final - 0.5) * math.exp(-epoch / pace) + (noise.gauss(0, 0.005) if noise else 0.0)


def configs(n: int, seed: int) -> list[dict[str, Any]]:
    """``n`` random configurations (the random-search set)."""
    rng = random.Random(seed)
    return [{"lr": 10 ** rng.uniform(-4, 0), "width": rng.choice((32, 64, 128))} for _ in range(n)]


def run(progress: Any = None, trials: int = 81, epochs: int = 27, eta: int = 3, min_epochs: int = 3, seed: int = 0,
        direction: str = "maximize") -> Reproduction:
    """``direction``: what the study tells the pruner (``minimize`` for an accuracy makes the check fail: it keeps
    the worst); ``trials``/``epochs``/``eta``/``seed``: a held-out set-up."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    pruner = optuna.pruners.SuccessiveHalvingPruner(min_resource=min_epochs, reduction_factor=eta)
    told: Literal["minimize", "maximize"] = "minimize" if direction == "minimize" else "maximize"
    study = optuna.create_study(direction=told, pruner=pruner, sampler=optuna.samplers.RandomSampler(seed))
    space = {"lr": optuna.distributions.FloatDistribution(1e-4, 1.0, log=True),
             "width": optuna.distributions.CategoricalDistribution((32, 64, 128))}
    set_ = configs(trials, seed)
    finals, kept, used = [], [], 0
    for i, params in enumerate(set_):
        noise = random.Random(seed * 10_000 + i)  # the same noise whether or not the trial is stopped
        full = [curve(params["lr"], params["width"], e, noise) for e in range(1, epochs + 1)]
        finals.append(curve(params["lr"], params["width"], epochs, None))  # what it would truly end at
        study.enqueue_trial(params)
        trial = study.ask(space)
        pruned = False
        for epoch in range(1, epochs + 1):
            used += 1
            trial.report(full[epoch - 1], epoch)
            if trial.should_prune():
                pruned = True
                break
        if pruned:
            study.tell(trial, state=optuna.trial.TrialState.PRUNED)
        else:
            study.tell(trial, full[-1])
            kept.append(finals[-1])
        if progress is not None:
            progress((i + 1) / trials, f"trial {i}: {'pruned' if pruned else 'kept'}")
    best, found = max(finals), max(kept) if kept else float("nan")
    fraction = used / (trials * epochs)
    measures = (
        Measure.at_most("true final accuracy: the set's best − ASHA's best", best - found, 0.005,
                        "as good as random search's best"),
        Measure.at_most("compute: epochs ASHA trains ÷ every trial to the end", fraction, 0.5,
                        "a fraction of random search's"),
    )
    return Reproduction(measures, {"fraction": fraction, "best": best, "found": found,
                                   "kept": len(kept), "trials": trials, "epochs": epochs})
