"""Repeats of one curve (a seed group) as their mean and a band: ± one standard deviation, or the 95 % confidence
interval of the mean (Student's t), on a common x grid; and the same for single numbers (a final accuracy over
seeds: ``spread``). No Qt, no torch.

Each curve is interpolated linearly onto the grid inside its own x range (outside it a run has no value: a shorter
or still-running repeat does not pull the mean). ``n`` is how many runs have a value at each x; where only one has,
the band is that curve itself (no spread to show).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

STD, CI95 = "std", "ci95"
BANDS = {STD: "± 1 std", CI95: "95 % interval"}
# two-sided 95 % quantiles of Student's t (0.975), 1 … 30 degrees of freedom; more: the normal's 1.96
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
         2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)


def t975(dof: int) -> float:
    """The two-sided 95 % critical value of Student's t with ``dof`` degrees of freedom (∞ for none)."""
    if dof < 1:
        return math.inf
    return _T975[dof - 1] if dof <= len(_T975) else 1.96


@dataclass(frozen=True)
class Band:
    """The mean of several curves on ``x`` and the band around it; ``n`` runs have a value at each x."""

    x: np.ndarray
    mean: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    n: np.ndarray


def half_width(std: np.ndarray, n: np.ndarray, kind: str) -> np.ndarray:
    """The band's half width: the std itself, or t(n−1)·std/√n (0 where a single run has a value)."""
    std = np.where(n > 1, std, 0.0)
    if kind == STD:
        return std
    if kind != CI95:
        raise ValueError(f"a band is {STD!r} or {CI95!r}, not {kind!r}")
    crit = np.array([t975(int(k) - 1) if k > 1 else 0.0 for k in np.ravel(n)]).reshape(np.shape(n))
    return crit * std / np.sqrt(np.maximum(n, 1))


def grid_of(xs: Sequence[np.ndarray], most: int) -> np.ndarray:
    """The x values to aggregate on: every x the curves have (sorted, once each) when there are at most ``most``,
    else ``most`` evenly spaced points over their joint range."""
    finite = [np.asarray(x, dtype=float)[np.isfinite(x)] for x in xs]
    finite = [x for x in finite if len(x)]
    if not finite:
        return np.empty(0)
    if max(len(np.unique(x)) if len(x) <= most else len(x) for x in finite) > most:  # the union has more, surely
        return np.linspace(min(float(x.min()) for x in finite), max(float(x.max()) for x in finite), most)
    union = np.unique(np.concatenate(finite))
    if len(union) <= most:
        return union
    return np.linspace(union[0], union[-1], most)


def on_grid(x: np.ndarray, y: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """One curve's values at ``grid``: linear between its points, NaN outside its x range (and where it has none)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    keep = np.isfinite(x) & np.isfinite(y)
    x, y = x[keep], y[keep]
    out = np.full(len(grid), np.nan)
    if not len(x):
        return out
    if len(x) > 1 and np.any(np.diff(x) < 0):
        order = np.argsort(x, kind="stable")
        x, y = x[order], y[order]
    inside = (grid >= x[0]) & (grid <= x[-1])
    out[inside] = np.interp(grid[inside], x, y)
    return out


def band(curves: Sequence[tuple[np.ndarray, np.ndarray]], grid: np.ndarray, kind: str = STD) -> Band:
    """The curves' mean and band on ``grid`` (x values in the curves' units)."""
    grid = np.asarray(grid, dtype=float)
    if not curves or not len(grid):
        empty = np.empty(0)
        return Band(empty, empty, empty, empty, np.empty(0, dtype=int))
    stack = np.vstack([on_grid(x, y, grid) for x, y in curves])
    have = np.isfinite(stack)
    n = have.sum(axis=0)
    shown = n > 0
    total = np.where(have, stack, 0.0).sum(axis=0)
    mean = np.divide(total, n, out=np.full(len(grid), np.nan), where=shown)
    squares = np.where(have, (stack - mean) ** 2, 0.0).sum(axis=0)
    std = np.sqrt(np.divide(squares, n - 1, out=np.zeros(len(grid)), where=n > 1))
    half = half_width(std, n, kind)
    return Band(grid[shown], mean[shown], (mean - half)[shown], (mean + half)[shown], n[shown])


@dataclass(frozen=True)
class Spread:
    """Numbers of several runs (a final accuracy over seeds): mean, sample std, count and the 95 % half width."""

    mean: float
    std: float
    n: int
    ci95: float

    def text(self, digits: int = 4) -> str:
        """``0.9120 ± 0.0040 (n=5)``; a single run's number alone."""
        if self.n < 2:
            return f"{self.mean:.{digits}f}"
        return f"{self.mean:.{digits}f} ± {self.std:.{digits}f} (n={self.n})"

    def to_dict(self) -> dict[str, float | int | None]:
        def plain(v: float) -> float | None:
            return v if math.isfinite(v) else None

        return {"mean": plain(self.mean), "std": plain(self.std), "n": self.n, "ci95": plain(self.ci95)}


def spread(values: Sequence[float | None]) -> Spread | None:
    """The spread of the finite numbers among ``values`` (None when there is none)."""
    xs = [float(v) for v in values if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)]
    if not xs:
        return None
    n = len(xs)
    mean = sum(xs) / n
    std = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1)) if n > 1 else 0.0
    return Spread(mean, std, n, t975(n - 1) * std / math.sqrt(n) if n > 1 else 0.0)
