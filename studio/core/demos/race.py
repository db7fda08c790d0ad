"""The optimizer race: catalog optimizers (torch.optim and the custom ones) on a 2-D test function.

Each racer optimises a 2-element float64 tensor from the same start; the path, the gap to the minimum
value f − f* and the first step where the gap falls under the tolerance are recorded. A racer whose loss
becomes non-finite or grows far above where it started is stopped and marked "diverged".
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

from studio.core.demos.common import (
    Emit,
    Progress,
    finite_or_none,
    parse_optimizer_specs,
    report,
    single_threaded,
    spec_label,
)
from studio.core.demos.functions import TestFunction, get_function
from studio.core.demos.race_presets import line_up
from studio.core.errors import ConfigError
from studio.core.optim.catalog import OPTIMIZERS

DIVERGE_FACTOR = 1e4  # stopped when f − f* exceeds this × (its start value + 1)


def _closure_type(name: str) -> bool:
    return "closure" in OPTIMIZERS.get(name).tags


@single_threaded
def run_racer(fn: TestFunction, name: str, options: dict[str, Any], steps: int, start: tuple[float, float],
              tolerance: float) -> dict[str, Any]:
    """One optimizer's race: ``path`` (steps+1, 2), ``gap`` (steps+1,) and when it got within ``tolerance``."""
    values = OPTIMIZERS.resolve(name, options, f"optimizers.{name}")
    p = torch.tensor(start, dtype=torch.float64, requires_grad=True)
    opt = OPTIMIZERS.build(name, params=[p], **values)
    closure = _closure_type(name) or getattr(opt, "requires_closure", False)
    path = np.full((steps + 1, 2), np.nan)
    gap = np.full(steps + 1, np.nan)
    path[0] = start
    gap[0] = float(fn(*start, np)) - fn.minimum
    limit = DIVERGE_FACTOR * (abs(gap[0]) + 1)
    reached, diverged_at = (0 if gap[0] < tolerance else None), None
    for t in range(1, steps + 1):
        if closure:
            opt.step(lambda: fn(p[0], p[1], torch))
        else:
            opt.zero_grad()
            fn(p[0], p[1], torch).backward()
            opt.step()
        with torch.no_grad():
            value = float(fn(p[0], p[1], torch)) - fn.minimum
            point = p.detach().numpy().copy()
        if not (math.isfinite(value) and np.isfinite(point).all()) or value > limit:
            diverged_at = t
            if np.isfinite(point).all() and math.isfinite(value):
                path[t], gap[t] = point, value
            break
        path[t], gap[t] = point, value
        if reached is None and value < tolerance:
            reached = t
    return {"name": name, "options": values, "path": path, "gap": gap, "steps_to_tol": reached,
            "diverged_at": diverged_at}


def parse_start(text: str, fn: TestFunction) -> tuple[float, float]:
    if text.strip() in ("", "auto"):
        return fn.start
    try:
        x, y = (float(v) for v in text.split(","))
    except ValueError:
        raise ConfigError(f"start is 'auto' or two numbers 'x, y', e.g. -1.5, 2; got {text!r}") from None
    return x, y


@single_threaded
def run(function: str = "quadratic", condition: float = 10.0, optimizers: str = "auto", steps: int = 200,
        tolerance: float = 1e-6, start: str = "auto", progress: Progress | None = None,
        emit: Emit | None = None) -> dict[str, Any]:
    """Race the optimizers of ``optimizers`` ("auto": the function's preset) on ``function``."""
    fn = get_function(function, condition)
    specs = parse_optimizer_specs(line_up(optimizers, function))
    origin = parse_start(start, fn)
    racers, labels = [], []
    for i, (name, options) in enumerate(specs):
        report(progress, i / len(specs), f"racing {name}")
        racers.append(run_racer(fn, name, options, steps, origin, tolerance))
        labels.append(spec_label(name, options))
    xs, ys, z = fn.grid()
    summary: dict[str, Any] = {"function": function, "steps": steps, "tolerance": tolerance, "optimizers": {}}
    if function == "quadratic":
        summary.update(lambda_max=1.0, lambda_min=1.0 / condition, lr_limit=2.0)
    for label, r in zip(labels, racers, strict=True):
        outcome = "diverged" if r["diverged_at"] is not None else r["steps_to_tol"]
        final = r["gap"][~np.isnan(r["gap"])][-1]
        summary["optimizers"][label] = {"steps_to_tol": outcome, "final_gap": finite_or_none(final),
                                        "diverged_at": r["diverged_at"]}
    report(progress, 1.0, "done")
    return {
        "summary": summary, "labels": labels, "formula": fn.formula, "bounds": fn.bounds,
        "minima": np.asarray(fn.minima), "grid": {"x": xs, "y": ys, "z": z, "levels": fn.levels(z)},
        "paths": np.stack([r["path"] for r in racers]), "gaps": np.stack([r["gap"] for r in racers]),
    }
