"""Keskar et al. 2017: trained to convergence, a large batch ends in a much sharper minimum and tests worse."""

from __future__ import annotations

import math
import time
from typing import Any

from studio.core.checks.base import Measure, PaperCheck, Reproduction
from studio.core.checks.stats import over_seeds, repeat, seeds_of

SMALL, LARGE = 32, 400  # 0.8 % and 10 % of the 4000 training samples (Keskar: 256 and 10 % of 60,000)
EPS = 1e-3
SEEDS = 6
KEYS = ("batch_size", "lr", "steps", "epochs", "converged", "train_acc", "test_acc", "gap", "train_loss", "test_loss",
        "eps_sharpness", "top_eigenvalue", "steps_to_target", "seconds")

CHECK = PaperCheck(
    name="keskar_large_batch",
    claim="Trained until they fit the training set, large batches converge to sharper minima than small batches "
          "and generalise worse.",
    paper="Keskar, Mudigere, Nocedal, Smelyanskiy & Tang 2017, 'On Large-Batch Training for Deep Learning: "
          "Generalization Gap and Sharp Minima' (ICLR), Tables 1–3",
    paper_setup="Network F1 (fully connected, MNIST, 60,000 training images), Adam, batch 256 (SB) vs 10 % of the "
                "training set (LB), each trained until the loss stops improving, no tricks: test accuracy 98.03 % "
                "(SB) vs 97.81 % (LB); sharpness (max of f(θ+z) − f(θ) over the box |z_i| ≤ ε(|θ_i| + 1), ×100/"
                "(1 + f(θ)), ε = 1e-3, maximised by L-BFGS-B in the full space) 1.23 (SB) vs 205.14 (LB).",
    our_setup=f"The large-batch lab: an MLP 784-128-128-10 (ReLU) on 4,000 images of the bundled Fashion-MNIST "
              f"subset (2,000 test images), Adam lr 1e-3, batch {SMALL} (0.8 %) vs {LARGE} (10 %), each trained from "
              f"the same start until its training accuracy is 100 % (at most 200 epochs, checked every epoch); "
              f"Keskar's sharpness with ε = {EPS:g} on 1,000 training images, maximised by 10 steps of projected "
              f"sign-gradient ascent (not L-BFGS-B). Scaled down: Fashion-MNIST subset instead of MNIST (15× fewer "
              f"training images), a 2-layer MLP of width 128 instead of F1, the small batch 32 to keep it well below "
              f"10 % of the smaller set. {SEEDS} seeds (0–{SEEDS - 1}: data subset, initial weights, batches), the "
              f"two batches of a seed from the same start; per seed the log10 of the sharpness ratio and the test "
              f"accuracy difference, mean ± s.e. over the seeds, bands with a one-sided 95 % margin (Student's t). "
              f"The train − test gap is not a measure: both runs reach 100 % training accuracy, so its difference "
              f"is the test accuracy difference again (it stays in the details).",
    runner="studio.core.checks.paper.keskar_large_batch:run",
    demos=("large_batch",),
    budget_s=120.0,
    preset={"dataset": "fashion_mnist_small", "batch_sizes": f"{SMALL},{LARGE}", "model": "mlp", "widths": "128,128",
            "optimizer": "adam", "lr": 1e-3, "linear_scaling": False, "warmup": False, "epochs": 200.0,
            "until_train_acc": 1.0, "train_samples": 4000, "test_samples": 2000, "hessian_samples": 1000,
            "sharpness_eps": EPS, "seed": 0},
)


def run(progress: Any = None, small_batch: int = SMALL, large_batch: int = LARGE, until_train_acc: float = 1.0,
        epochs: float = 200.0, train_samples: int = 4000, seed: int = 0, seeds: int = SEEDS) -> Reproduction:
    """Per seed (``seed`` … ``seed + seeds − 1``), train the small and the large batch as the lab does from the same
    start; compare their ε-box sharpness and test accuracy, paired by seed.

    ``small_batch == large_batch`` (or ``until_train_acc=0`` with few ``epochs``) breaks the set-up.
    """
    from studio.core.demos.large_batch import run as sweep

    def one(s: int, sub: Any) -> dict[str, Any]:
        params = {**CHECK.preset, "train_samples": train_samples, "epochs": epochs,
                  "until_train_acc": until_train_acc, "seed": s, "interpolation": False}
        runs = []
        for i, batch in enumerate((small_batch, large_batch)):  # two sweeps, so equal batches still give two runs
            part = None if sub is None else (lambda f, t, i=i: sub((i + f) / 2, t))
            runs.append(sweep(**{**params, "batch_sizes": str(batch)}, progress=part)["runs"][0])
        return {label: {k: _plain(r[k]) for k in KEYS} for label, r in zip(("small", "large"), runs, strict=True)}

    started, cpu = time.perf_counter(), time.process_time()
    per_seed = repeat(one, seeds_of(seed, seeds), progress)
    ratios = [r["large"]["eps_sharpness"] / r["small"]["eps_sharpness"] if r["small"]["eps_sharpness"] else
              float("nan") for r in per_seed]
    ratio = over_seeds(math.log10(x) if x > 0 else float("nan") for x in ratios)
    acc_drop = over_seeds(100 * (r["large"]["test_acc"] - r["small"]["test_acc"]) for r in per_seed)
    fitted = sum(bool(r[k]["converged"]) for r in per_seed for k in ("small", "large"))
    measures = (
        Measure.above(f"log10 of the sharpness ratio LB/SB (ε-box, ε = {EPS:g})", ratio, 1.0,
                      "log10(205.14 / 1.23) = 2.2 (167×)"),
        Measure.below("test accuracy LB − SB (points)", acc_drop, 0.0, "97.81 − 98.03 = −0.22"),
        Measure.holds("runs trained to convergence (train acc reached)", float(fitted), fitted == 2 * len(per_seed),
                      "both (until the loss stops improving)", f"= {2 * len(per_seed)} (every run)"),
    )
    details: dict[str, Any] = {
        "seeds": list(seeds_of(seed, seeds)), "sharpness_ratio": ratios, "runs": per_seed[0], "per_seed": per_seed,
        # the train − test gap is not a measure: both runs fit the training set, so it is −(the accuracy difference)
        "gap_rise_pt": [round(100 * (r["large"]["gap"] - r["small"]["gap"]), 2) for r in per_seed],
        "top_eigenvalue_ratio": [r["large"]["top_eigenvalue"] / r["small"]["top_eigenvalue"]
                                 if r["small"]["top_eigenvalue"] > 0 else None for r in per_seed],
        "wall_s": round(time.perf_counter() - started, 2), "cpu_s": round(time.process_time() - cpu, 2),
    }
    return Reproduction(measures, details)


def _plain(value: Any) -> Any:
    """A JSON-able number (numpy scalars → float/int/bool)."""
    if hasattr(value, "item"):
        return value.item()
    return value
