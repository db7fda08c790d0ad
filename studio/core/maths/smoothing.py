"""TensorBoard's curve smoothing: an exponential moving average, debiased at the start (no Qt, no torch).

``acc = acc·w + (1−w)·v`` and ``norm = norm·w + (1−w)``, drawn as ``acc / norm``. The recurrence is vectorised
with numpy in blocks (``_scan``): inside a block the same products and sums as the loop, in the same order; each
block then adds its predecessor's end times ``w^(t+1)``, so the result equals the loop to ~1e-12 relative (the
loop itself rounds as much). 20,000 points take 0.66 ms against the loop's 5.6 ms (×8, side by side, load 16).
scipy's ``lfilter`` would be as quick, but importing ``scipy.signal`` costs 1.4–2.0 s and 67 MB (measured) and
numpy is loaded already. ``norm`` has a closed form. A curve that grows (a live run) continues from the saved
state instead of starting over.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

LOOP_BELOW = 256  # points: under this the Python loop is as quick as the blocked scan
TINY = 1e-300  # powers of the weight below this are taken as 0 (denormal arithmetic is ~10× slower)


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
        accs = _scan((1 - weight) * values[:cut], weight, acc)
        norms = 1 - _powers(weight, cut) * (1 - norm)
        head = accs / norms
        acc, norm = float(accs[-1]), float(norms[-1])
    else:
        head, acc, norm = _loop(values[:cut], weight, acc, norm)
    if cut == len(values):
        return head, acc, norm
    tail, acc, norm = _after_non_finite(values[cut:], weight, acc, norm)
    return np.concatenate([head, tail]), acc, norm


def _powers(weight: float, n: int) -> np.ndarray:
    """``weight ** (1 … n)``, those below ``TINY`` as 0."""
    out = np.zeros(n)
    last = n if weight >= 1 else min(n, int(math.log(TINY) / math.log(weight)) if weight > 0 else 0)
    if last > 0:
        out[:last] = np.power(weight, np.arange(1, last + 1, dtype=float))
    return out


def _scan(x: np.ndarray, weight: float, a0: float) -> np.ndarray:
    """``a[t] = weight·a[t−1] + x[t]`` from ``a[−1] = a0``: the series cut into ~√n blocks of ~√n points, every
    block advanced one point per numpy operation, then each block offset by where the one before it ended."""
    n = len(x)
    size = max(16, math.isqrt(n))
    blocks = -(-n // size)
    flat = np.zeros(blocks * size)
    flat[:n] = x
    grid = flat.reshape(blocks, size).T.copy()  # grid[t, j] = x[j·size + t]
    step = np.empty(blocks)
    for t in range(1, size):
        np.multiply(grid[t - 1], weight, out=step)
        grid[t] += step
    ends = grid[-1].tolist()
    carry = weight ** size
    before = np.empty(blocks)
    a = a0
    for j, end in enumerate(ends):  # what each block starts from
        before[j] = a
        a = a * carry + end
    grid += _powers(weight, size)[:, None] * before[None, :]
    return grid.T.reshape(-1)[:n]


def _after_non_finite(values: np.ndarray, weight: float, acc: float, norm: float) -> tuple[np.ndarray, float, float]:
    """The loop from a non-finite value on: ±inf stays until a NaN or the other infinity, then NaN for good."""
    if len(values) <= LOOP_BELOW:
        return _loop(values, weight, acc, norm)
    head, acc, norm = _loop(values[:1], weight, acc, norm)
    n = len(values)
    norms = 1 - _powers(weight, n - 1) * (1 - norm)
    out = np.full(n - 1, np.nan)
    if math.isinf(acc):
        rest = values[1:]
        ends = np.flatnonzero(np.isnan(rest) | (np.isinf(rest) & (np.sign(rest) != np.sign(acc))))
        stays = int(ends[0]) if len(ends) else n - 1
        out[:stays] = acc
        acc = acc if stays == n - 1 else math.nan
    return np.concatenate([head, out]), acc, float(norms[-1]) if len(norms) else norm


def _loop(values: np.ndarray, weight: float, acc: float, norm: float) -> tuple[np.ndarray, float, float]:
    out: list[float] = []
    keep = out.append
    rest = 1 - weight
    for v in values.tolist():
        acc = acc * weight + rest * v
        norm = norm * weight + rest
        keep(acc / norm)
    return np.array(out, dtype=float), acc, norm
