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
    send,
    single_threaded,
    spec_label,
)
from studio.core.demos.functions import TestFunction, get_function
from studio.core.demos.live import Controls, LiveLoop
from studio.core.demos.race_presets import line_up
from studio.core.errors import ConfigError
from studio.core.optim.catalog import OPTIMIZERS

DIVERGE_FACTOR = 1e4  # stopped when f − f* exceeds this × (its start value + 1)


def _closure_type(name: str) -> bool:
    return "closure" in OPTIMIZERS.get(name).tags


class Racer:
    """One optimizer on the function: :meth:`step` takes one step and records it; ``path`` (steps+1, 2), ``gap``
    (steps+1,), when it got within ``tolerance`` and when it diverged. ``set_lr_scale`` multiplies its learning
    rate from the next step on (a live race)."""

    def __init__(self, fn: TestFunction, name: str, options: dict[str, Any], steps: int, start: tuple[float, float],
                 tolerance: float) -> None:
        self.fn, self.name, self.tolerance = fn, name, tolerance
        self.values = OPTIMIZERS.resolve(name, options, f"optimizers.{name}")
        self.p = torch.tensor(start, dtype=torch.float64, requires_grad=True)
        self.opt = OPTIMIZERS.build(name, params=[self.p], **self.values)
        self.base_lr = [group.get("lr") for group in self.opt.param_groups]
        self.closure = _closure_type(name) or getattr(self.opt, "requires_closure", False)
        self.path = np.full((steps + 1, 2), np.nan)
        self.gap = np.full(steps + 1, np.nan)
        self.path[0] = start
        self.gap[0] = float(fn(*start, np)) - fn.minimum
        self.limit = DIVERGE_FACTOR * (abs(self.gap[0]) + 1)
        self.reached: int | None = 0 if self.gap[0] < tolerance else None
        self.diverged_at: int | None = None
        self.t = 0

    @property
    def running(self) -> bool:
        return self.diverged_at is None and self.t < len(self.gap) - 1

    def set_lr_scale(self, scale: float) -> None:
        for group, lr in zip(self.opt.param_groups, self.base_lr, strict=True):
            if lr is not None:
                group["lr"] = lr * scale

    def step(self) -> None:
        if not self.running:
            return
        fn, p, t = self.fn, self.p, self.t + 1
        self.t = t
        if self.closure:
            self.opt.step(lambda: fn(p[0], p[1], torch))
        else:
            self.opt.zero_grad()
            fn(p[0], p[1], torch).backward()
            self.opt.step()
        with torch.no_grad():
            value = float(fn(p[0], p[1], torch)) - fn.minimum
            point = p.detach().numpy().copy()
        if not (math.isfinite(value) and np.isfinite(point).all()) or value > self.limit:
            self.diverged_at = t
            if np.isfinite(point).all() and math.isfinite(value):
                self.path[t], self.gap[t] = point, value
            return
        self.path[t], self.gap[t] = point, value
        if self.reached is None and value < self.tolerance:
            self.reached = t

    def record(self) -> dict[str, Any]:
        return {"name": self.name, "options": self.values, "path": self.path, "gap": self.gap,
                "steps_to_tol": self.reached, "diverged_at": self.diverged_at}


@single_threaded
def run_racer(fn: TestFunction, name: str, options: dict[str, Any], steps: int, start: tuple[float, float],
              tolerance: float) -> dict[str, Any]:
    """One optimizer's race: ``path`` (steps+1, 2), ``gap`` (steps+1,) and when it got within ``tolerance``."""
    racer = Racer(fn, name, options, steps, start, tolerance)
    while racer.running:
        racer.step()
    return racer.record()


def parse_start(text: str, fn: TestFunction) -> tuple[float, float]:
    if text.strip() in ("", "auto"):
        return fn.start
    try:
        x, y = (float(v) for v in text.split(","))
    except ValueError:
        raise ConfigError(f"start is 'auto' or two numbers 'x, y', e.g. -1.5, 2; got {text!r}") from None
    return x, y


LIVE_FPS = 25.0  # a live race: steps a second at 1× (the replay's pace)
LIVE_ONLY = ("steps", "start", "gap0", "tolerance")  # in a live race's setup frame, not in the result


@single_threaded
def run(function: str = "quadratic", condition: float = 10.0, optimizers: str = "auto", steps: int = 200,
        tolerance: float = 1e-6, start: str = "auto", progress: Progress | None = None,
        emit: Emit | None = None, controls: Controls | None = None) -> dict[str, Any]:
    """Race the optimizers of ``optimizers`` ("auto": the function's preset) on ``function``. With ``controls``
    (live): all racers step together, one frame a step at ``LIVE_FPS`` × speed, and a ``lr_scale`` change
    ({racer index: factor}) multiplies a racer's learning rate from the next step; ``speed`` sets the pace."""
    fn = get_function(function, condition)
    specs = parse_optimizer_specs(line_up(optimizers, function))
    origin = parse_start(start, fn)
    racers = [Racer(fn, name, options, steps, origin, tolerance) for name, options in specs]
    labels = [spec_label(name, options) for name, options in specs]
    xs, ys, z = fn.grid()
    picture = {"labels": labels, "formula": fn.formula, "bounds": fn.bounds, "minima": np.asarray(fn.minima),
               "grid": {"x": xs, "y": ys, "z": z, "levels": fn.levels(z)}, "steps": steps, "start": origin,
               "gap0": [float(r.gap[0]) for r in racers], "tolerance": tolerance}
    if controls is None:
        for i, racer in enumerate(racers):
            report(progress, i / len(specs), f"racing {racer.name}")
            while racer.running:
                racer.step()
    else:
        _race_live(racers, picture, controls, progress, emit)
    records = [r.record() for r in racers]
    summary: dict[str, Any] = {"function": function, "steps": steps, "tolerance": tolerance, "optimizers": {}}
    if function == "quadratic":
        summary.update(lambda_max=1.0, lambda_min=1.0 / condition, lr_limit=2.0)
    for label, r in zip(labels, records, strict=True):
        outcome = "diverged" if r["diverged_at"] is not None else r["steps_to_tol"]
        final = r["gap"][~np.isnan(r["gap"])][-1]
        summary["optimizers"][label] = {"steps_to_tol": outcome, "final_gap": finite_or_none(final),
                                        "diverged_at": r["diverged_at"]}
    report(progress, 1.0, "done")
    return {"summary": summary, **{k: v for k, v in picture.items() if k not in LIVE_ONLY},
            "paths": np.stack([r["path"] for r in records]), "gaps": np.stack([r["gap"] for r in records])}


def _race_live(racers: list[Racer], picture: dict[str, Any], controls: Controls, progress: Progress | None,
               emit: Emit | None) -> None:
    """Step every racer together, a frame a step, paced; apply ``lr_scale`` and ``speed`` changes as they come."""
    loop = LiveLoop(controls, fps=LIVE_FPS)
    loop.on_pause = lambda paused: send(emit, {"paused": paused, "step": racers[0].t})
    send(emit, {"setup": picture})
    steps, t = picture["steps"], 0
    while t < steps:
        changes, go = loop.next_frame()
        scales = changes.get("lr_scale", {})
        for i, scale in scales.items():
            if 0 <= int(i) < len(racers):
                racers[int(i)].set_lr_scale(float(scale))
        if "speed" in changes:
            loop.period = 1.0 / (LIVE_FPS * max(float(changes["speed"]), 0.01))
        if not go:
            continue
        t += 1
        for racer in racers:
            racer.step()
        send(emit, {"step": t, "points": np.stack([r.path[t] for r in racers]),
                    "gaps": np.array([r.gap[t] for r in racers]),
                    **({"lr_scale": {int(i): float(v) for i, v in scales.items()}} if scales else {})})
        report(progress, t / steps, f"step {t}/{steps}")
        if not any(r.running for r in racers):
            break
