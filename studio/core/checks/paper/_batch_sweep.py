"""The training run the two batch-size checks share (Shallue et al. 2019, Goyal et al. 2017).

The large-batch lab's step (``studio.core.demos.large_batch``: the same data loader, catalog MLP, shuffled
batches, linear warm-up ``η·min(1, step/warmup)`` and linear-scaling rule), with what the checks need on top:
SGD with momentum at a chosen β, a stop once the test accuracy reaches a target (steps to target), test
evaluations at geometrically spaced steps, and a flag when the loss stops being finite (divergence).
Torch-free at import: the catalog imports every module of this package.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from studio.core.demos.training import Data


def eval_steps(total: int, ratio: float = 1.03) -> list[int]:
    """Steps 1, 2, … then growing by ``ratio``: 'steps to target' to within ~3 % at any scale, and ``total``."""
    out, step = [], 1.0
    while step < total:
        out.append(int(step))
        step = max(step * ratio, int(step) + 1)
    return sorted(set(out + [total]))


def train(data: Data, batch: int, *, widths: tuple[int, ...], lr: float, momentum: float, steps: int,
          warmup_steps: int, target_acc: float | None, seed: int, batch_norm: bool = False,
          decay_steps: tuple[int, ...] = (), eval_ratio: float = 1.03,
          epoch_marks: tuple[float, ...] = ()) -> dict[str, Any]:
    """Train the MLP with SGD(momentum) at batch ``batch`` for at most ``steps`` steps.

    Stops early when ``target_acc`` is reached (``steps_to_target``) or the loss is no longer finite
    (``diverged``). ``decay_steps``: steps after which the learning rate is divided by 10 (a step schedule, as
    Goyal et al.'s ÷10 at epochs 30, 60, 80). ``epoch_marks``: epochs at which the test accuracy is also
    recorded (``acc_at``).
    """
    import torch
    from torch import nn

    from studio.core.demos.training import Batches, build_model, evaluate

    model = build_model("mlp", data, seed, data.train.x.device, widths=list(widths),
                        batch_norm=batch_norm)
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
    batches = Batches(len(data.train), batch, seed + 1, data.train.x.device)
    marks = {max(1, round(e * batches.per_epoch)): e for e in epoch_marks}
    checkpoints = set(eval_steps(steps, eval_ratio)) | set(marks)
    curve_step, curve_acc = [0], [evaluate(model, data.test)[1]]
    reached = 0 if target_acc is not None and curve_acc[0] >= target_acc else None
    diverged_at: int | None = None
    acc_at: dict[float, float] = {}
    step = 0
    while reached is None and step < steps:
        step += 1
        if warmup_steps or decay_steps:
            decay = 0.1 ** sum(step > d for d in decay_steps)
            for group in opt.param_groups:
                group["lr"] = lr * decay * (min(1.0, step / warmup_steps) if warmup_steps else 1.0)
        idx = batches.next()
        loss = nn.functional.cross_entropy(model(data.train.x[idx]), data.train.y[idx])
        if not math.isfinite(float(loss.detach())):
            diverged_at = step
            break
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step in checkpoints:
            acc = evaluate(model, data.test)[1]
            curve_step.append(step)
            curve_acc.append(acc)
            if step in marks:
                acc_at[marks[step]] = acc
            if target_acc is not None and acc >= target_acc:
                reached = step
    if diverged_at is not None:
        for epoch in epoch_marks:  # a diverged run predicts one class: chance accuracy from then on
            acc_at.setdefault(epoch, 1.0 / data.num_classes)
    final = curve_acc[-1] if diverged_at is None else 1.0 / data.num_classes
    return {"batch_size": batch, "lr": lr, "momentum": momentum, "steps_run": step, "steps_to_target": reached,
            "diverged_at": diverged_at, "final_acc": final, "acc_at": acc_at,
            "curve": {"step": curve_step, "test_acc": curve_acc}}


def load(dataset: str, train_samples: int, test_samples: int, seed: int) -> Data:
    """The lab's loader (``demos.training.load_data``) on the CPU."""
    from studio.core.demos.training import load_data

    return load_data(dataset, train_samples, test_samples, seed, "cpu")
