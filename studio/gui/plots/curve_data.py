"""What the curves draw from, without Qt: each run's metrics at full resolution in growing numpy arrays, and the
step that turns them into on-screen points (x in the chosen units, smoothing, min/max decimation per pixel
column). ``prepare`` runs on the curve loader's thread for big selections and inline for small ones; it only reads
the arrays it is given (views of the GUI's arrays, which only ever grow past them), so both threads can hold them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from studio.core.maths.decimate import Pyramid, minmax_indices, pyramid_indices
from studio.core.maths.smoothing import Smoothed, smooth
from studio.gui.plots.wall_gaps import Gap, break_at, pause_gaps

CHUNK = 1024  # a live series grows its arrays by at least this many points at a time


class Cancelled(Exception):
    """A newer request superseded the one being prepared."""


class Series:
    """One metric of one run: steps, values and wall times (float64) that grow in chunks; ``dirty`` until drawn."""

    def __init__(self, steps: np.ndarray | list | None = None, values: np.ndarray | list | None = None,
                 walls: np.ndarray | list | None = None) -> None:
        steps = np.asarray([] if steps is None else steps, dtype=float)
        values = np.asarray([] if values is None else values, dtype=float)
        walls = np.full(len(steps), np.nan) if walls is None else np.asarray(walls, dtype=float)
        self._buf = np.stack([steps, values, walls]) if len(steps) else np.empty((3, 0))
        self.n = len(steps)
        self.dirty = True
        self.smoothed: Smoothed | None = None  # the last smoothing, continued when the series grows
        self.pyramid: Pyramid | None = None  # the values' level-of-detail pyramid, extended when the series grows
        self._walls_checked = (0, True)  # (points checked, their wall times never stepped back)

    @property
    def steps(self) -> np.ndarray:
        return self._buf[0, :self.n]

    @property
    def values(self) -> np.ndarray:
        return self._buf[1, :self.n]

    @property
    def walls(self) -> np.ndarray:
        return self._buf[2, :self.n]

    def __len__(self) -> int:
        return self.n

    def last_step(self) -> float | None:
        return float(self._buf[0, self.n - 1]) if self.n else None

    def append(self, steps: list | np.ndarray, values: list | np.ndarray, walls: list | np.ndarray) -> None:
        """Append points (in step order). Past ``n`` only: views handed out before stay as they were."""
        k = len(steps)
        if not k:
            return
        if self.n + k > self._buf.shape[1]:
            grown = np.empty((3, max(2 * self._buf.shape[1], self.n + k, CHUNK)))
            grown[:, :self.n] = self._buf[:, :self.n]
            self._buf = grown
        self._buf[0, self.n:self.n + k] = steps
        self._buf[1, self.n:self.n + k] = values
        self._buf[2, self.n:self.n + k] = walls
        self.n += k
        self.dirty = True

    def walls_ordered(self) -> bool:
        """Whether the wall times are known and never step back (a resumed run's may): each point checked once."""
        checked, ordered = self._walls_checked
        if checked < self.n:
            walls = self._buf[2, max(checked - 1, 0):self.n]
            ordered = ordered and bool(np.isfinite(walls).all() and np.all(np.diff(walls) >= 0))
            self._walls_checked = (self.n, ordered)
        return ordered

    def snapshot(self) -> Snap:
        return Snap(self.steps, self.values, self.walls, self.smoothed, self.pyramid)


@dataclass(frozen=True)
class Snap:
    """A series as it stood when a request was made."""

    steps: np.ndarray
    values: np.ndarray
    walls: np.ndarray
    smoothed: Smoothed | None = None
    pyramid: Pyramid | None = None


@dataclass
class Job:
    """What to draw: every series (run → metric → snapshot), how, and for which plot ranges."""

    generation: int
    series: dict[str, dict[str, Snap]]
    only: set[tuple[str, str]] | None  # the series to prepare (None: all)
    x_mode: str
    log_x: bool
    smoothing: float
    smoothed_names: frozenset[str]
    batch_sizes: dict[str, int]
    plot_of: dict[str, str]  # metric → plot key, for the metrics plotted
    ranges: dict[str, tuple[tuple[float, float] | None, int]]  # plot key → (x range in view units, or None for
    # the whole curve; log10 on a log axis) and the pixel columns to decimate it to


@dataclass
class Drawn:
    """One curve ready for pyqtgraph: decimated points, the raw curve behind a smoothed one, the smoothing kept."""

    x: np.ndarray
    y: np.ndarray
    raw_x: np.ndarray | None
    raw_y: np.ndarray | None
    n: int  # full-resolution points it was made from
    smoothed: Smoothed | None = None
    pyramid: Pyramid | None = None  # of the raw values, when one was used


@dataclass
class Prepared:
    generation: int
    drawn: dict[tuple[str, str], Drawn] = field(default_factory=dict)
    counts: dict[tuple[str, str], int] = field(default_factory=dict)  # points of each series it covered
    loaded: list[str] = field(default_factory=list)  # runs read from the store for it


def x_values(mode: str, run: dict[str, Snap], s: Snap, batch_size: float) -> np.ndarray:
    """The x coordinates of series ``s`` of a run in x-axis ``mode`` (step, epoch, samples, wall)."""
    steps = s.steps
    if mode == "epoch":
        ends = run.get("epoch")
        if ends is None or not len(ends.steps):
            return np.full(len(steps), np.nan)
        xs, ys = np.r_[0.0, ends.steps], np.r_[0.0, ends.values]
        per_epoch = xs[1] / ys[1] if ys[1] else 1.0
        out = np.interp(steps, xs, ys)
        beyond = steps > xs[-1]  # the epoch in progress
        out[beyond] = ys[-1] + (steps[beyond] - xs[-1]) / per_epoch
        return out
    if mode == "samples":
        return steps * batch_size
    if mode == "wall":
        origin = wall_origin(run)
        return s.walls - origin if origin is not None else np.full(len(steps), np.nan)
    return steps.copy()


def wall_origin(run: dict[str, Snap]) -> float | None:
    """The wall time the run's first metric was logged (x = 0 of the wall-time axis), None if none is known."""
    starts = [float(m.walls[0]) for m in run.values() if len(m.walls) and np.isfinite(m.walls[0])]
    return min(starts) if starts else None


def prepare(job: Job, stale: Callable[[], bool] = lambda: False) -> Prepared:
    """Decimated curves for ``job``; raises ``Cancelled`` as soon as ``stale()`` says a newer job came."""
    out = Prepared(job.generation)
    for run_id, run in job.series.items():
        if stale():
            raise Cancelled
        gaps = _gaps(run) if job.x_mode == "wall" else []
        for name, s in run.items():
            if job.only is not None and (run_id, name) not in job.only:
                continue
            key = job.plot_of.get(name)
            if key is not None and key not in job.ranges:
                continue  # its plot is not there yet (a run read meanwhile brought it): it stays to be drawn
            out.counts[(run_id, name)] = len(s.values)
            if key is None:
                continue  # not plotted
            x_range, columns = job.ranges[key]
            out.drawn[(run_id, name)] = _draw(job, run, s, run_id, name, x_range, columns, gaps)
    return out


def _gaps(run: dict[str, Snap]) -> list[Gap]:
    """The run's pauses and stop-resume gaps on the wall-time axis (``wall_gaps.py``), in its x units."""
    origin = wall_origin(run)
    return [] if origin is None else [(a - origin, b - origin, idle) for a, b, idle in pause_gaps(run)]


def _draw(job: Job, run: dict[str, Snap], s: Snap, run_id: str, name: str,
          x_range: tuple[float, float] | None, columns: int, gaps: list[Gap]) -> Drawn:
    xs = x_values(job.x_mode, run, s, job.batch_sizes.get(run_id, np.nan))
    keep = np.isfinite(xs)
    if job.log_x:
        keep &= xs > 0
    raw = s.values
    smoothed = None
    if name in job.smoothed_names and job.smoothing > 0:
        smoothed = smooth(raw, job.smoothing, s.smoothed)  # on all points, as the loop before: then keep/decimate
    if not keep.all():
        xs, raw = xs[keep], raw[keep]
        ys = smoothed.values[keep] if smoothed is not None else raw
    else:
        ys = smoothed.values if smoothed is not None else raw
    order = None
    if len(xs) > 1 and np.any(np.diff(xs) < 0):  # wall times of a resumed run may step back
        order = np.argsort(xs, kind="stable")
        xs, raw, ys = xs[order], raw[order], ys[order]
    ux = np.log10(xs) if job.log_x else xs
    pyramid = _pyramid(s, columns) if order is None and len(raw) == len(s.values) else None
    idx = minmax_indices(ux, ys, columns, x_range) if smoothed is not None else \
        pyramid_indices(ux, ys, columns, x_range, pyramid)
    x, y = break_at(xs[idx], ys[idx], gaps)  # no line across a pause (wall time only: gaps is empty otherwise)
    if smoothed is None:
        return Drawn(x, y, None, None, len(s.values), None, pyramid)
    raw_idx = pyramid_indices(ux, raw, columns, x_range, pyramid)
    return Drawn(x, y, *break_at(xs[raw_idx], raw[raw_idx], gaps), len(s.values), smoothed, pyramid)


def _pyramid(s: Snap, columns: int) -> Pyramid | None:
    """The values' pyramid (the kept one extended to the new points), where a whole-curve view of ``columns``
    spans enough buckets a column for it to save work; else the kept one, if any."""
    kept = s.pyramid
    if kept is not None and kept.n == len(s.values):
        return kept
    if kept is None and len(s.values) < 8 * Pyramid.BASE * columns:
        return None
    return (kept or Pyramid()).extend(s.values)
