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
    """The indices ``minmax_decimate`` keeps, ascending (to pick the same points of other arrays: the x of a
    log axis decimated in log10 units, say)."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if len(x) != len(y):
        raise ValueError(f"x and y differ in length: {len(x)} vs {len(y)}")
    columns = max(1, int(columns))
    if len(x) == 0:
        return np.arange(0)
    lo, hi = (float(x[0]), float(x[-1])) if x_range is None else (float(x_range[0]), float(x_range[1]))
    start = max(0, int(np.searchsorted(x, lo, side="left")) - 1)
    stop = min(len(x), int(np.searchsorted(x, hi, side="right")) + 1)
    xs, ys = x[start:stop], y[start:stop]
    if len(xs) <= 4 * columns or hi <= lo:
        return np.arange(start, stop)
    column = np.clip(((xs - lo) / (hi - lo) * columns).astype(np.int64), -1, columns)
    starts = np.flatnonzero(np.r_[True, column[1:] != column[:-1]])  # x is sorted: each column is one run
    ends = np.r_[starts[1:], len(xs)] - 1
    finite = np.where(np.isfinite(ys), ys, np.nan)
    keep = np.zeros(len(xs), dtype=bool)
    keep[starts] = True
    keep[ends] = True
    lows = _first_extreme(finite, starts, np.fmin)
    highs = _first_extreme(finite, starts, np.fmax)
    keep[lows[lows >= 0]] = True
    keep[highs[highs >= 0]] = True
    return start + np.flatnonzero(keep)


def _first_extreme(y: np.ndarray, starts: np.ndarray, ufunc: np.ufunc) -> np.ndarray:
    """Index of the first minimum (``np.fmin``) or maximum (``np.fmax``) of each run ``starts[i]…starts[i+1]``
    (NaNs ignored; -1 where a run is all NaN)."""
    extreme = ufunc.reduceat(y, starts)
    run = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, len(y)]))
    hits = np.flatnonzero(y == extreme[run])
    out = np.full(len(starts), -1, dtype=np.int64)
    first_of_run, where = np.unique(run[hits], return_index=True)
    out[first_of_run] = hits[where]
    return out
