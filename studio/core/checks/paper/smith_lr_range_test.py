"""The learning-rate range test's suggested rate trains about as well as the best of a grid (Smith 2017)."""

from __future__ import annotations

import math
from typing import Any

from studio.core.checks.base import Measure, PaperCheck, Reproduction
from studio.core.demos.common import report

CHECK = PaperCheck(
    name="smith_lr_range_test",
    claim="One short run with an exponentially growing learning rate tells a good rate: trained at the suggested "
          "rate, a model ends within a small margin of the best rate of a grid that trains it many times over.",
    paper="Smith, Cyclical Learning Rates for Training Neural Networks, WACV 2017 (§3.3, the LR range test)",
    paper_setup="CIFAR-10, the Caffe net: a few epochs of a growing rate show where accuracy starts to rise and "
                "where it falls; rates read off it bound a cyclical schedule that reaches the tuned fixed rate's "
                "81.4 % in 25,000 instead of 70,000 iterations (Table 1).",
    our_setup="Fashion-MNIST (4,000 train, 2,000 test) and a 128-unit MLP, SGD with momentum 0.9 and batch 64: the "
              "range test (200 steps, 1e-5 … 10, an exponential ramp as Lightning's lr_find, on a fresh model) "
              "suggests the steepest descent of the smoothed loss; that rate and a grid of 7 rates (1e-3 … 1, ×√10 "
              "apart) train 5 epochs each. Measured: the suggested rate's test accuracy below the grid's best. "
              "Scaled down: a small MLP and 5 epochs in place of a CNN and a schedule.",
    runner="studio.core.checks.paper.smith_lr_range_test:run",
    budget_s=120.0,
)

GRID = (1e-3, 3.16e-3, 1e-2, 3.16e-2, 0.1, 0.316, 1.0)
MARGIN_PT = 2.0  # points of test accuracy


def range_test(data: Any, *, widths: tuple[int, ...], batch: int, momentum: float, start: float, end: float,
               steps: int, seed: int) -> dict[str, Any]:
    """The ramp on a fresh model: each step's loss, the smoothed loss and the suggestion (``core/maths/lr_range``)."""
    import numpy as np
    import torch
    from torch import nn

    from studio.core.demos.training import Batches, build_model
    from studio.core.maths import lr_range

    model = build_model("mlp", data, seed, data.train.x.device, widths=list(widths))
    opt = torch.optim.SGD(model.parameters(), lr=start, momentum=momentum)
    batches = Batches(len(data.train), batch, seed + 1, data.train.x.device)
    lrs = lr_range.ramp(start, end, steps)
    losses: list[float] = []
    for lr in lrs:
        for group in opt.param_groups:
            group["lr"] = float(lr)
        idx = batches.next()
        loss = nn.functional.cross_entropy(model(data.train.x[idx]), data.train.y[idx])
        value = float(loss.detach())
        losses.append(value if math.isfinite(value) else float("inf"))
        if not math.isfinite(value) or lr_range.diverged(lr_range.smoothed(np.asarray(losses))):
            break
        opt.zero_grad()
        loss.backward()
        opt.step()
    smooth = lr_range.smoothed(np.asarray(losses))
    found = lr_range.suggest(lrs[: len(losses)], smooth)
    return {"lrs": [float(x) for x in lrs[: len(losses)]], "losses": losses, "suggestion": found.to_dict()}


def run(progress: Any = None, dataset: str = "fashion_mnist_small", train_samples: int = 4000,
        test_samples: int = 2000, widths: str = "128", batch: int = 64, momentum: float = 0.9, epochs: float = 5.0,
        ramp_steps: int = 200, start: float = 1e-5, end: float = 10.0, pick: str = "steepest",
        seed: int = 0) -> Reproduction:
    """``pick``: which rate of the ramp to train at — ``steepest`` (the suggestion), ``min_over_10``, or ``last`` (the
    ramp's last rate, where the loss blew up: the check fails); ``dataset``/``seed``: a held-out set-up."""
    from studio.core.checks.paper import _batch_sweep
    from studio.core.demos.common import parse_ints

    report(progress, 0.0, f"loading {dataset}")
    data = _batch_sweep.load(dataset, train_samples, test_samples, seed)
    shape = tuple(parse_ints(widths, "widths"))
    found = range_test(data, widths=shape, batch=batch, momentum=momentum, start=start, end=end, steps=ramp_steps,
                       seed=seed)
    rate = found["lrs"][-1] if pick == "last" else found["suggestion"][pick]
    steps = max(1, round(epochs * len(data.train) / batch))
    accs: dict[float, float] = {}
    for i, lr in enumerate((*GRID, rate) if rate else GRID):
        result = _batch_sweep.train(data, batch, widths=shape, lr=lr, momentum=momentum, steps=steps,
                                    warmup_steps=0, target_acc=None, seed=seed, eval_ratio=2.0)
        accs[lr] = result["final_acc"]
        report(progress, (i + 1) / (len(GRID) + 1), f"lr {lr:.3g}: {result['final_acc']:.1%}")
    best_lr = max(GRID, key=lambda lr: accs[lr])
    gap = 100.0 * (accs[best_lr] - accs[rate]) if rate else None
    measures = (
        Measure.at_most(f"test accuracy: the grid's best (lr {best_lr:g}) − the suggested rate's "
                        f"({pick}: {rate:.3g}) (points)" if rate else "no rate suggested", gap, MARGIN_PT,
                        "as good as the tuned rate (81.4 % both)"),
        Measure.holds("the suggested rate lies inside the grid's span", rate, bool(rate) and GRID[0] / 3 <= rate
                      <= GRID[-1], "a rate to train at, read off the ramp", f"{GRID[0] / 3:g} … {GRID[-1]:g}"),
    )
    return Reproduction(measures, {"range_test": found, "accuracy": {f"{k:.4g}": v for k, v in accs.items()},
                                   "rate": rate, "best_grid_lr": best_lr})
