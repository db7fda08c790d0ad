"""The linear neuron: full-batch GD ends at the least-squares solution; SGD's jitter around it shrinks as 1/B."""

from __future__ import annotations

import math
from typing import Any

from studio.core.checks.base import Measure, PaperCheck, Reproduction

BATCHES = (2, 4, 8, 16)

CHECK = PaperCheck(
    name="linear_neuron_sgd_noise",
    claim="Full-batch gradient descent on the mean squared error of a line ends at the least-squares solution; "
          "mini-batch SGD at the same learning rate jitters around it, with a spread that shrinks as 1/B.",
    paper="Legendre 1805 and Gauss 1809 (least squares); Robbins & Monro 1951 (SGD); Mandt, Hoffman & Blei 2017, "
          "'Stochastic Gradient Descent as Approximate Bayesian Inference' (JMLR), eq. 11–13",
    paper_setup="Least squares: the minimiser of the mean squared error is the solution of the normal equations, "
                "which GD on this convex quadratic reaches. Mandt et al.: with a constant learning rate η, SGD's "
                "iterates settle into a stationary distribution around the optimum whose covariance is "
                "proportional to η/B (B the mini-batch size).",
    our_setup="The linear-neuron demo at its defaults (200 points on y = 2(x + ε) − 1, noise 0.3, η = 0.3, "
              "float64): GD until |ΔL| < 1e-6, compared with numpy's least-squares solution; SGD for 2,000 "
              f"steps at batch sizes {', '.join(map(str, BATCHES))}, its spread = the mean squared distance of the "
              "path's second half from the least-squares solution, and the log–log slope of spread against B. "
              "Sampling without replacement from 200 points makes the spread fall a little faster than 1/B.",
    runner="studio.core.checks.paper.linear_neuron_sgd_noise:run",
    demos=("linear_neuron",),
    budget_s=20.0,
    preset={"batch_size": 4, "lr": 0.3, "noise": 0.3},
)


def run(progress: Any = None, batches: tuple[int, ...] = BATCHES, steps: int = 2000, lr: float = 0.3,
        scale_lr: bool = False, seed: int = 0) -> Reproduction:
    """``scale_lr``: η grows with B (η·B/B₀), which holds η/B fixed — the spread then no longer shrinks (a FAIL)."""
    import numpy as np

    from studio.core.demos.linear_neuron import run as linear_neuron

    spreads, gd_error = [], 0.0
    for i, batch in enumerate(batches):
        if progress is not None:
            progress(i / len(batches), f"batch {batch}")
        rate = lr * batch / batches[0] if scale_lr else lr
        summary = linear_neuron(batch_size=batch, lr=rate, steps=steps, seed=seed)["summary"]
        spreads.append(summary["sgd"]["path_variance"])
        ls, gd = summary["least_squares"], summary["gd"]
        gd_error = max(gd_error, math.hypot(gd["w"] - ls["w"], gd["b"] - ls["b"]))
    slope = float(np.polyfit(np.log(batches), np.log(spreads), 1)[0])
    measures = (
        Measure.at_most("GD's end: distance from the least-squares (w, b)", gd_error, 0.01,
                        "0: GD reaches the least-squares minimiser"),
        Measure.within("SGD spread around the optimum vs batch size: log–log slope", slope, -1.5, -0.7,
                       "−1 (covariance ∝ η/B)"),
    )
    return Reproduction(measures, {"batches": list(batches), "spreads": spreads})
