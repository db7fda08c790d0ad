"""TensorBoard's curve smoothing: an exponential moving average, debiased at the start (no Qt, no torch).

``acc = acc·w + (1−w)·v`` and ``norm = norm·w + (1−w)``, drawn as ``acc / norm``. Long curves run the recurrence
in C through ``scipy.signal.lfilter`` (the same two products and one sum per point, so the numbers are identical to
the plain loop); short ones, and what follows a non-finite value, use the loop itself (no scipy import for a handful
of points). A curve that grows (a live run) continues from the saved state instead of starting over.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

LOOP_BELOW = 4096  # points: under this the Python loop is quick and spares importing scipy.signal


@dataclass(frozen=True)
class Smoothed:
    """The smoothed values of a curve's first ``len(values)`` points and the state to continue from."""

    weight: float
    values: np.ndarray
    acc: float = 0.0
    norm: float = 0.0


def ema(values: np.ndarray, weight: float) -> np.ndarray:
    """TensorBoard's smoothing: an exponential moving average, debiased at the start."""
    values = np.asarray(values)
    if weight <= 0 or len(values) == 0:
        return values
    return smooth(values, weight).values


def smooth(values: np.ndarray, weight: float, before: Smoothed | None = None) -> Smoothed:
    """Smooth ``values``; with ``before`` (the same weight, a prefix of ``values`` already smoothed) only the new
    points are computed."""
    values = np.asarray(values, dtype=float)
    if before is not None and (before.weight != weight or len(before.values) > len(values)):
        before = None
    done = 0 if before is None else len(before.values)
    acc, norm = (0.0, 0.0) if before is None else (before.acc, before.norm)
    new = values[done:]
    out, acc, norm = _run(new, weight, acc, norm)
    head = np.empty(0) if before is None else before.values
    return Smoothed(weight, np.concatenate([head, out]) if len(head) else out, acc, norm)


def _run(values: np.ndarray, weight: float, acc: float, norm: float) -> tuple[np.ndarray, float, float]:
    bad = np.flatnonzero(~np.isfinite(values))
    cut = int(bad[0]) if len(bad) else len(values)
    if cut >= LOOP_BELOW:
        from scipy.signal import lfilter

        b, a = [1 - weight], [1.0, -weight]
        accs, acc_end = lfilter(b, a, values[:cut], zi=[weight * acc])
        norms, norm_end = lfilter(b, a, np.ones(cut), zi=[weight * norm])
        head = accs / norms
        acc, norm = float(accs[-1]), float(norms[-1])
        del acc_end, norm_end
    else:
        head, acc, norm = _loop(values[:cut], weight, acc, norm)
    if cut == len(values):
        return head, acc, norm
    tail, acc, norm = _loop(values[cut:], weight, acc, norm)
    return np.concatenate([head, tail]), acc, norm


def _loop(values: np.ndarray, weight: float, acc: float, norm: float) -> tuple[np.ndarray, float, float]:
    out = np.empty(len(values), dtype=float)
    for i, v in enumerate(values):
        acc = acc * weight + (1 - weight) * v
        norm = norm * weight + (1 - weight)
        out[i] = acc / norm
    return out, acc, norm
