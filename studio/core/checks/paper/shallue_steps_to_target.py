"""Steps to a target accuracy halve when the batch doubles (slope −1 on log–log axes), then flatten."""

from __future__ import annotations

import math
import time
from typing import Any

from studio.core.checks.base import Measure, PaperCheck, Reproduction
from studio.core.demos.common import parse_ints, report

SLOPE_LOW, SLOPE_HIGH, FLAT = -1.3, -0.7, -0.5

CHECK = PaperCheck(
    name="shallue_steps_to_target",
    claim="The training steps needed to reach a target accuracy halve each time the batch doubles (slope −1 on "
          "log–log axes: perfect scaling) up to a critical batch size; beyond it the returns diminish and the "
          "curve flattens.",
    paper="Shallue, Lee, Antognini, Sohl-Dickstein, Frostig & Dahl 2019, 'Measuring the Effects of Data "
          "Parallelism on Neural Network Training', JMLR 20(112)",
    paper_setup="35 workloads (data sets from MNIST and Fashion-MNIST to ImageNet and LM1B; fully connected, "
                "convolutional and Transformer models), batch sizes in powers of two up to 2¹⁶, SGD, momentum and "
                "Nesterov momentum, the learning rate and momentum tuned afresh for every batch size "
                "(quasi-random search); steps to reach a goal validation error. Every workload shows perfect "
                "scaling (slope ≈ −1 on log–log axes), then diminishing returns, then maximal data parallelism "
                "where the steps stop falling (slope ≈ 0); the critical batch size varies widely by workload.",
    our_setup="Fashion-MNIST, the bundled 10,000 training images, 1,000 test images; the large-batch lab's MLP "
              "(784-128-10); SGD with momentum 0.9; batch sizes 8 … 2048; the learning rate scaled linearly "
              "(0.003 at batch 8) and capped at 0.1, then the best of ×0.5, ×1, ×2 around it per batch size (a "
              "3-point tuning grid instead of ~100 trials); steps until the test accuracy first reaches 80 % "
              "(evaluated at steps growing by 3 %). The slopes are least-squares fits of log steps on log batch "
              "over batches ≤ 64 and ≥ 256. Scaled down: one data set and model, one seed, 9 batch sizes, "
              "3 learning rates and a fixed momentum instead of a tuned one.",
    runner="studio.core.checks.paper.shallue_steps_to_target:run",
    demos=("large_batch",),
    budget_s=60.0,
    preset={"batch_sizes": "8,16,32,64,128,256,512", "optimizer": "momentum", "lr": 0.003, "linear_scaling": True,
            "base_batch": 8, "warmup": False, "epochs": 5.0, "target_acc": 0.8, "model": "mlp", "widths": "128",
            "train_samples": 0, "test_samples": 1000, "evals": 400,
            "until_train_acc": 0.0},
)


def lr_rule(batch: int, lr: float, base_batch: int, scaling: str, max_lr: float) -> float:
    """The learning rate at ``batch``: ``linear`` (the lab's rule, ``large_batch.lr_for``) capped at ``max_lr``,
    or ``fixed`` (``lr`` at every batch size)."""
    from studio.core.demos.large_batch import lr_for

    if scaling == "fixed":
        return lr
    if scaling != "linear":
        raise ValueError(f"lr_scaling is 'linear' or 'fixed', not {scaling!r}")
    return min(lr_for(batch, lr, True, base_batch), max_lr)


def fit_slope(points: list[tuple[int, int]]) -> float | None:
    """Least-squares slope of log(steps) on log(batch); None with fewer than two points."""
    if len(points) < 2:
        return None
    xs = [math.log(b) for b, _ in points]
    ys = [math.log(s) for _, s in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx if sxx else None


def run(progress: Any = None, dataset: str = "fashion_mnist_small",
        batch_sizes: str = "8,16,32,64,128,256,512,1024,2048", lr: float = 0.003, base_batch: int = 8,
        lr_scaling: str = "linear", max_lr: float = 0.1, lr_grid: str = "0.5,1,2", momentum: float = 0.9,
        target_acc: float = 0.8, max_steps: int = 3000, small_max: int = 64, large_min: int = 256,
        widths: str = "128", train_samples: int = 0, test_samples: int = 1000, seed: int = 0) -> Reproduction:
    """The batch sweep; ``lr_scaling="fixed"`` holds the learning rate (the broken set-up: steps stop halving)."""
    from studio.core.checks.paper import _batch_sweep

    sizes = sorted(set(parse_ints(batch_sizes, "batch_sizes")))
    factors = [float(f) for f in lr_grid.split(",") if f.strip()]
    report(progress, 0.0, f"loading {dataset}")
    data = _batch_sweep.load(dataset, train_samples, test_samples, seed)
    runs: list[dict[str, Any]] = []
    for i, batch in enumerate(sizes):
        centre = lr_rule(batch, lr, base_batch, lr_scaling, max_lr)
        tried = []
        for factor in factors:
            started = time.perf_counter()
            result = _batch_sweep.train(data, batch, widths=tuple(parse_ints(widths, "widths")),
                                        lr=centre * factor, momentum=momentum, steps=max_steps, warmup_steps=0,
                                        target_acc=target_acc, seed=seed)
            result["seconds"] = round(time.perf_counter() - started, 2)
            tried.append(result)
        best = min(tried, key=lambda r: r["steps_to_target"] or math.inf)
        runs.append({**best, "tried": {f"{r['lr']:.4g}": r["steps_to_target"] for r in tried}})
        report(progress, (i + 1) / len(sizes), f"batch {batch}: {best['steps_to_target']} steps to target")
    reached = [(r["batch_size"], r["steps_to_target"]) for r in runs if r["steps_to_target"]]
    small = fit_slope([p for p in reached if p[0] <= small_max])
    large = fit_slope([p for p in reached if p[0] >= large_min])
    missed = [r["batch_size"] for r in runs if not r["steps_to_target"]]
    measures = (
        Measure.within(f"log–log slope of steps to {target_acc:.0%} over batches ≤ {small_max}", small,
                       SLOPE_LOW, SLOPE_HIGH, "≈ −1 (perfect scaling)"),
        Measure.at_least(f"log–log slope over batches ≥ {large_min}", large, FLAT,
                         "flatter: diminishing returns, then ≈ 0"),
        Measure.holds("batch sizes that never reached the target", float(len(missed)), not missed,
                      "every batch size reaches the target", "= 0"),
    )
    details = {"runs": [{k: v for k, v in r.items() if k != "acc_at"} for r in runs],
               "steps_to_target": {str(b): s for b, s in reached}, "slope_small": small, "slope_large": large}
    return Reproduction(measures, details)
