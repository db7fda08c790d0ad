"""Min/max decimation of a curve to what a screen can show (no Qt, no torch).

Plain subsampling (every k-th point) drops spikes; here the x range is cut into ``columns`` equal columns (one per
pixel column, say) and each column keeps its first, lowest, highest and last point, in x order. So every local
minimum and maximum that the drawn resolution can show stays on the curve, and a line drawn through the kept
points covers the same vertical extent in every column as the full curve. ``x`` must be sorted ascending.
"""

from __future__ import annotations

import numpy as np


def minmax_decimate(x: np.ndarray, y: np.ndarray, columns: int,
                    x_range: tuple[float, float] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """At most ~4 points per column of ``x_range`` (default: the data's span) plus one point each side of it.

    Points outside ``x_range`` are dropped but for the nearest one on each side, so the line still runs off the
    edge of the view. Curves with no more than ``4 * columns`` points in range come back unchanged (copies)."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    keep = minmax_indices(x, y, columns, x_range)
    return x[keep], y[keep]


def minmax_indices(x: np.ndarray, y: np.ndarray, columns: int,
                   x_range: tuple[float, float] | None = None) -> np.ndarray:
    """The indices (ascending) of the points ``minmax_decimate`` keeps: to take other columns of the same points
    along (a curve's wall times).

    Each column is one run of ``x`` (sorted): its bounds come from a binary search of the column numbers, its
    extremes from one ``reduceat`` each and the first point equal to them from a binary search of the matches, so
    a curve costs a few passes over its points and nothing that grows faster (no sort)."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if len(x) != len(y):
        raise ValueError(f"x and y differ in length: {len(x)} vs {len(y)}")
    columns = max(1, int(columns))
    if len(x) == 0:
        return np.arange(0, dtype=np.int64)
    lo, hi = (float(x[0]), float(x[-1])) if x_range is None else (float(x_range[0]), float(x_range[1]))
    start = max(0, int(np.searchsorted(x, lo, side="left")) - 1)
    stop = min(len(x), int(np.searchsorted(x, hi, side="right")) + 1)
    if stop - start <= 4 * columns or hi <= lo:
        return np.arange(start, stop, dtype=np.int64)
    return _decimated(x[start:stop], y[start:stop], columns, lo, hi) + start


def _decimated(xs: np.ndarray, ys: np.ndarray, columns: int, lo: float, hi: float) -> np.ndarray:
    """The indices of the first, lowest, highest and last point of each column of ``lo…hi`` (and of the points
    left of it, and from ``hi`` on)."""
    column = np.floor((xs - lo) / (hi - lo) * columns)  # sorted as x is; left of lo < 0, from hi on ≥ columns
    bounds = np.searchsorted(column, np.arange(columns + 1, dtype=float), side="left")
    edges = np.concatenate(([0], bounds, [len(xs)]))  # sorted
    starts = edges[:-1][np.diff(edges) > 0]
    ends = np.r_[starts[1:], len(xs)] - 1
    keep = np.zeros(len(xs), dtype=bool)
    keep[starts] = True
    keep[ends] = True
    finite = ys if np.isfinite(ys).all() else np.where(np.isfinite(ys), ys, np.nan)
    for ufunc in (np.fmin, np.fmax):
        first = _first_extreme(finite, starts, ends, ufunc)
        keep[first[first >= 0]] = True
    return np.flatnonzero(keep)


def _first_extreme(y: np.ndarray, starts: np.ndarray, ends: np.ndarray, ufunc: np.ufunc) -> np.ndarray:
    """Index of the first minimum (``np.fmin``) or maximum (``np.fmax``) of each run ``starts[i]…ends[i]``
    (NaNs ignored; -1 where a run is all NaN)."""
    extreme = ufunc.reduceat(y, starts)
    hits = np.flatnonzero(y == np.repeat(extreme, ends - starts + 1))  # NaN equals nothing
    if not len(hits):
        return np.full(len(starts), -1, dtype=np.int64)
    at = np.minimum(np.searchsorted(hits, starts), len(hits) - 1)
    found = hits[at]
    return np.where(found <= ends, found, -1)




class Pyramid:
    """A curve's min/max level-of-detail pyramid: for buckets of ``BASE``, ``BASE·FAN``, ``BASE·FAN²``… points
    (by index), the index of each full bucket's first minimum and first maximum. Built once per curve and
    extended as it grows (its first points never change); only for all-finite values (``usable``)."""

    BASE = 16
    FAN = 4

    def __init__(self) -> None:
        self.n = 0  # points looked at
        self.usable = True
        self.levels: list[tuple[np.ndarray, np.ndarray]] = []  # (argmin, argmax) of each full bucket, finest first

    def extend(self, y: np.ndarray) -> Pyramid:
        """A pyramid of ``y`` (which starts with the points this one looked at), reusing this one's work."""
        y = np.asarray(y, dtype=float)
        out = Pyramid()
        out.n = len(y)
        out.usable = self.usable and bool(np.isfinite(y[self.n:]).all())
        if not out.usable:
            return out
        empty = np.empty(0, np.int64)
        old = self.levels[0] if self.levels else (empty, empty)
        done, full = len(old[0]), len(y) // self.BASE
        block = y[done * self.BASE:full * self.BASE].reshape(-1, self.BASE)
        base = (done + np.arange(len(block))) * self.BASE
        below = (np.concatenate((old[0], base + block.argmin(axis=1))),
                 np.concatenate((old[1], base + block.argmax(axis=1))))
        out.levels = [below]
        depth = 1
        while len(below[0]) >= self.FAN:
            old = self.levels[depth] if depth < len(self.levels) else (empty, empty)
            done, full = len(old[0]), len(below[0]) // self.FAN
            lows = below[0][done * self.FAN:full * self.FAN].reshape(-1, self.FAN)
            highs = below[1][done * self.FAN:full * self.FAN].reshape(-1, self.FAN)
            rows = np.arange(len(lows))
            below = (np.concatenate((old[0], lows[rows, y[lows].argmin(axis=1)])),
                     np.concatenate((old[1], highs[rows, y[highs].argmax(axis=1)])))
            out.levels.append(below)
            depth += 1
        return out

    def candidates(self, x: np.ndarray, columns: int, lo: float, hi: float, start: int,
                   stop: int) -> np.ndarray | None:
        """Indices among ``start…stop`` whose decimation is the full one's (``pyramid_indices``); None where the
        pyramid cannot tell (then every point is decimated)."""
        if not self.usable or not self.levels or self.n > len(x):
            return None
        depth = -1
        while depth + 1 < len(self.levels) and self.BASE * self.FAN ** (depth + 1) * 8 <= (stop - start) / columns:
            depth += 1
        if depth < 0:
            return None  # under 8 base buckets a column: the pyramid saves nothing
        size = self.BASE * self.FAN ** depth
        bounds = np.searchsorted(x, lo + (hi - lo) * np.arange(1, columns + 1) / columns, side="left")
        if not _bounds_agree(x, bounds, lo, hi, columns):
            return None
        ends = np.array([start, stop - 1, stop, np.searchsorted(x, lo, side="left")], dtype=np.int64)
        cuts = np.concatenate((ends, bounds))
        low, high = self.levels[depth]
        first, last = start // size, min(-(-stop // size), len(low))
        raw = np.concatenate(((cuts - 1) // size, cuts // size, [first, last - 1]))
        raw = raw[(raw >= first) & (raw < last)]
        whole = np.ones(last - first, dtype=bool)
        whole[raw - first] = False
        keep = np.zeros(stop - start, dtype=bool)
        for picked in (low[first:last][whole], high[first:last][whole],
                       (raw[:, None] * size + np.arange(size)[None, :]).ravel()):
            picked = picked[(picked >= start) & (picked < stop)]
            keep[picked - start] = True
        keep[max(last * size, start) - start:] = True  # past the last full bucket: every point
        return np.flatnonzero(keep) + start


def _bounds_agree(x: np.ndarray, bounds: np.ndarray, lo: float, hi: float, columns: int) -> bool:
    """Whether each binary-searched column start is where ``minmax_indices``' floor formula puts it."""
    k = np.arange(1, columns + 1, dtype=float)
    inside, before = bounds < len(x), bounds > 0
    at = np.floor((x[bounds[inside]] - lo) / (hi - lo) * columns)
    prev = np.floor((x[bounds[before] - 1] - lo) / (hi - lo) * columns)
    return bool(np.all(at >= k[inside]) and np.all(prev < k[before]))


def pyramid_indices(x: np.ndarray, y: np.ndarray, columns: int, x_range: tuple[float, float] | None,
                    pyramid: Pyramid | None) -> np.ndarray:
    """Exactly ``minmax_indices(x, y, columns, x_range)`` (``pyramid``: ``y``'s), reading only the pyramid's
    bucket extremes where a column spans many buckets: every column's first, lowest, highest and last point is
    among them or in a bucket cut by a column's edge, read whole. The level is chosen per zoom (≥ 8 buckets a
    column), so a curve of any length costs about its columns, not its points."""
    x = np.asarray(x, dtype=float)
    if pyramid is None or len(x) == 0 or len(x) != len(y):
        return minmax_indices(x, y, columns, x_range)
    columns = max(1, int(columns))
    lo, hi = (float(x[0]), float(x[-1])) if x_range is None else (float(x_range[0]), float(x_range[1]))
    start = max(0, int(np.searchsorted(x, lo, side="left")) - 1)
    stop = min(len(x), int(np.searchsorted(x, hi, side="right")) + 1)
    if stop - start <= 4 * columns or hi <= lo:
        return np.arange(start, stop, dtype=np.int64)
    cand = pyramid.candidates(x, columns, lo, hi, start, stop)
    if cand is None:
        return minmax_indices(x, y, columns, x_range)
    return cand[_decimated(x[cand], np.asarray(y, dtype=float)[cand], columns, lo, hi)]
