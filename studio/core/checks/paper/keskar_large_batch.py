"""Keskar et al. 2017: trained to convergence, a large batch ends in a much sharper minimum and tests worse."""

from __future__ import annotations

import time
from typing import Any

from studio.core.checks.base import Measure, PaperCheck, Reproduction

SMALL, LARGE = 32, 400  # 0.8 % and 10 % of the 4000 training samples (Keskar: 256 and 10 % of 60,000)
EPS = 1e-3

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
              f"10 % of the smaller set. Seed 0.",
    runner="studio.core.checks.paper.keskar_large_batch:run",
    demos=("large_batch",),
    budget_s=90.0,
    preset={"dataset": "fashion_mnist_small", "batch_sizes": f"{SMALL},{LARGE}", "model": "mlp", "widths": "128,128",
            "optimizer": "adam", "lr": 1e-3, "linear_scaling": False, "warmup": False, "epochs": 200.0,
            "until_train_acc": 1.0, "train_samples": 4000, "test_samples": 2000, "hessian_samples": 1000,
            "sharpness_eps": EPS, "seed": 0},
)


def run(progress: Any = None, small_batch: int = SMALL, large_batch: int = LARGE, until_train_acc: float = 1.0,
        epochs: float = 200.0, train_samples: int = 4000, seed: int = 0) -> Reproduction:
    """Train the small and the large batch as the lab does; compare their ε-box sharpness and test accuracy.

    ``small_batch == large_batch`` (or ``until_train_acc=0`` with few ``epochs``) breaks the set-up.
    """
    from studio.core.demos.large_batch import run as sweep

    params = {**CHECK.preset, "train_samples": train_samples, "epochs": epochs, "until_train_acc": until_train_acc,
              "seed": seed, "interpolation": False}
    runs = []
    started, cpu = time.perf_counter(), time.process_time()
    for i, batch in enumerate((small_batch, large_batch)):  # two sweeps, so equal batches still give two runs
        sub = None if progress is None else (lambda f, t, i=i: progress((i + f) / 2, t))
        runs.append(sweep(**{**params, "batch_sizes": str(batch)}, progress=sub)["runs"][0])
    sb, lb = runs
    ratio = lb["eps_sharpness"] / sb["eps_sharpness"] if sb["eps_sharpness"] else None
    acc_drop = round(100 * (lb["test_acc"] - sb["test_acc"]), 2)
    gap_rise = round(100 * (lb["gap"] - sb["gap"]), 2)
    fitted = sum(bool(r["converged"]) for r in runs)
    measures = (
        Measure.at_least(f"sharpness ratio LB/SB (ε-box, ε = {EPS:g})", ratio, 10.0, "205.14 / 1.23 ≈ 167"),
        Measure.holds("test accuracy LB − SB (points)", acc_drop, acc_drop < 0, "97.81 − 98.03 = −0.22",
                      "< 0 (large batch lower)"),
        Measure.holds("train − test gap LB − SB (points)", gap_rise, gap_rise > 0, "larger for LB",
                      "> 0 (large batch larger)"),
        Measure.holds("runs trained to convergence (train acc reached)", float(fitted), fitted == 2,
                      "both (until the loss stops improving)", "= 2"),
    )
    keys = ("batch_size", "lr", "steps", "epochs", "converged", "train_acc", "test_acc", "gap", "train_loss",
            "test_loss", "eps_sharpness", "top_eigenvalue", "steps_to_target", "seconds")
    details: dict[str, Any] = {
        "runs": {label: {k: _plain(r[k]) for k in keys} for label, r in (("small", sb), ("large", lb))},
        "top_eigenvalue_ratio": lb["top_eigenvalue"] / sb["top_eigenvalue"] if sb["top_eigenvalue"] > 0 else None,
        "wall_s": round(time.perf_counter() - started, 2), "cpu_s": round(time.process_time() - cpu, 2),
    }
    return Reproduction(measures, details)


def _plain(value: Any) -> Any:
    """A JSON-able number (numpy scalars → float/int/bool)."""
    if hasattr(value, "item"):
        return value.item()
    return value
