"""Where a run stood still on the wall-time axis (a pause, or a stop and a resume hours later), so the curves break
their line there instead of drawing a straight line across the time nothing was trained (TensorBoard leaves such
gaps empty too). No Qt.

A gap is read from the run's own points: between two points of its densest series (the train curves, a point per
``metric_interval`` steps) the time beyond what those steps take at the run's usual pace (its median seconds per
step) is a gap when it is longer than ``MIN_GAP_S`` and than one epoch of training. The evaluation at an epoch's
end (at most an epoch's work) is not a gap; a pause or a resume is.
"""

from __future__ import annotations

from typing import Any

import numpy as np

MIN_GAP_S = 30.0  # a shorter stand-still (a busy machine, a checkpoint written) keeps the line whole
EPOCH = "epoch"  # the series whose first step says how many steps an epoch has


Gap = tuple[float, float, float]  # (last point before, first point after, the time idle between them)


def pause_gaps(run: dict[str, Any]) -> list[Gap]:
    """The run's stand-stills as ``(last wall time before, first after, seconds idle)``, from its series (name →
    an object with ``steps`` and ``walls`` arrays: ``curve_data.Snap``)."""
    dense = max((s for name, s in run.items() if name != EPOCH), key=lambda s: len(s.steps), default=None)
    if dense is None or len(dense.steps) < 3:
        return []
    steps, walls = np.asarray(dense.steps, float), np.asarray(dense.walls, float)
    known = np.isfinite(walls)
    steps, walls = steps[known], walls[known]
    if len(steps) < 3:
        return []
    order = np.argsort(walls, kind="stable")
    steps, walls = steps[order], walls[order]
    d_step, d_wall = np.diff(steps), np.diff(walls)
    moving = d_step > 0
    if moving.sum() < 2:
        return []
    pace = float(np.median(d_wall[moving] / d_step[moving]))  # seconds a step usually takes
    epoch = run.get(EPOCH)
    per_epoch = float(epoch.steps[0]) if epoch is not None and len(epoch.steps) else 0.0
    idle = d_wall - np.clip(d_step, 0, None) * pace  # time beyond what the steps took
    longer = idle > max(MIN_GAP_S, per_epoch * pace)
    return [(float(walls[i]), float(walls[i + 1]), float(idle[i])) for i in np.flatnonzero(longer)]


def break_at(x: np.ndarray, y: np.ndarray, gaps: list[Gap]) -> tuple[np.ndarray, np.ndarray]:
    """``x, y`` (x sorted) with a NaN point inside each segment that spans at least half of a gap's idle time (a
    series logged less often, an epoch's validation, spans the gap with a point inside it): pyqtgraph draws no
    line through a NaN."""
    if not gaps or len(x) < 2:
        return x, y
    at = []
    for low, high, idle in gaps:
        first = max(int(np.searchsorted(x, low, side="right")) - 1, 0)
        last = min(int(np.searchsorted(x, high, side="left")), len(x) - 1)
        for i in range(first + 1, last + 1):
            if min(x[i], high) - max(x[i - 1], low) >= idle / 2:
                at.append(i)
    if not at:
        return x, y
    at = sorted(set(at))
    middles = [(x[i - 1] + x[i]) / 2 for i in at]
    return np.insert(x, at, middles), np.insert(np.asarray(y, float), at, np.nan)
