"""The learning-rate range test's maths (Smith 2017, "Cyclical Learning Rates", §3.3; Lightning's ``Tuner.lr_find``,
fastai's ``lr_find``): an exponential ramp of the learning rate, the loss smoothed along it, when to stop (the loss
has blown up), and the suggested rates — the steepest descent of the smoothed loss against log(lr), and the rate
at its minimum ÷ 10. No torch, no Qt.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

SMOOTHING = 0.98  # the smoothed loss's EMA weight (fastai's β), debiased at the start
DIVERGED = 4.0  # the ramp stops once the smoothed loss is this many times its lowest so far
SKIP_START = 5  # points at the start that never count as the steepest (the EMA is still settling)
MIN_DROP = 0.02  # the loss must fall by this share of its start somewhere along the ramp for any suggestion


def ramp(start: float, end: float, steps: int) -> np.ndarray:
    """``steps`` learning rates from ``start`` to ``end``, evenly spaced in log."""
    if not (0 < start < end) or steps < 2:
        raise ValueError(f"a ramp goes up from a rate above 0 over 2 or more steps: {start}, {end}, {steps}")
    return np.geomspace(start, end, steps)


def smoothed(losses: np.ndarray, weight: float = SMOOTHING) -> np.ndarray:
    """The debiased exponential moving average of the losses (TensorBoard's and fastai's)."""
    out = np.empty(len(losses))
    acc = 0.0
    for i, loss in enumerate(np.asarray(losses, dtype=float)):
        acc = weight * acc + (1 - weight) * loss
        out[i] = acc / (1 - weight ** (i + 1))
    return out


def diverged(smooth_losses: np.ndarray, factor: float = DIVERGED) -> bool:
    """Whether the ramp should stop: the latest smoothed loss is not finite or ``factor`` × the lowest so far."""
    if not len(smooth_losses):
        return False
    last = float(smooth_losses[-1])
    return not math.isfinite(last) or (len(smooth_losses) > SKIP_START and last > factor * float(
        np.nanmin(smooth_losses)))


@dataclass(frozen=True)
class Suggestion:
    """The suggested rates of a range test: ``steepest`` (where the smoothed loss falls fastest per decade),
    ``min_over_10`` (the rate at the lowest smoothed loss ÷ 10), and the index of each point."""

    steepest: float | None
    min_over_10: float | None
    steepest_index: int | None
    min_index: int | None

    def to_dict(self) -> dict[str, float | int | None]:
        return {"steepest": self.steepest, "min_over_10": self.min_over_10, "steepest_index": self.steepest_index,
                "min_index": self.min_index}


def suggest(lrs: np.ndarray, smooth_losses: np.ndarray) -> Suggestion:
    """The suggestions on a smoothed loss curve: the steepest descent before the minimum (a ramp's loss falls,
    bottoms out, then blows up; the steepest fall after the bottom is no rate to train at), and the minimum ÷ 10.
    None for both when the loss never fell by ``MIN_DROP`` of where it started."""
    lrs, losses = np.asarray(lrs, dtype=float), np.asarray(smooth_losses, dtype=float)
    finite = np.isfinite(losses) & np.isfinite(lrs) & (lrs > 0)
    if finite.sum() < 3:
        return Suggestion(None, None, None, None)
    where = np.flatnonzero(finite)
    low = int(where[np.argmin(losses[where])])
    if losses[low] > losses[where[0]] - MIN_DROP * abs(losses[where[0]]):  # it never fell: nothing to suggest
        return Suggestion(None, None, None, None)
    start = min(SKIP_START, max(0, low - 2))
    window = where[(where >= start) & (where <= low)]
    if len(window) < 3:
        return Suggestion(None, float(lrs[low] / 10), None, low)
    slope = np.gradient(losses[window], np.log10(lrs[window]))
    steep = int(window[int(np.argmin(slope))])
    return Suggestion(float(lrs[steep]), float(lrs[low] / 10), steep, low)
