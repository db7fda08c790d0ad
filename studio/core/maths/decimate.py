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
    xs, ys = x[start:stop], y[start:stop]
    if len(xs) <= 4 * columns or hi <= lo:
        return np.arange(start, stop, dtype=np.int64)
    column = np.floor((xs - lo) / (hi - lo) * columns)  # sorted as x is; left of lo < 0, from hi on ≥ columns
    bounds = np.searchsorted(column, np.arange(columns + 1, dtype=float), side="left")
    edges = np.unique(np.r_[0, bounds, len(xs)])
    starts = edges[:-1][np.diff(edges) > 0]
    ends = np.r_[starts[1:], len(xs)] - 1
    keep = np.zeros(len(xs), dtype=bool)
    keep[starts] = True
    keep[ends] = True
    finite = ys if np.isfinite(ys).all() else np.where(np.isfinite(ys), ys, np.nan)
    for ufunc in (np.fmin, np.fmax):
        first = _first_extreme(finite, starts, ends, ufunc)
        keep[first[first >= 0]] = True
    return np.flatnonzero(keep) + start


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
