"""Seed groups in the curves view, without Qt: the shown runs that differ only in the seed (``core/runs/
seed_groups.py``) are drawn as one curve per metric, their mean, with a band around it (± 1 std, or the 95 %
interval of the mean: ``core/maths/bands.py``) instead of a line per run.

Every run is put on the current x axis (steps, epochs, samples seen, wall time) and smoothed on its own first (the
smoothing TensorBoard draws), then the group is aggregated on a common grid of at most ``columns`` points: a
smoothed band is the spread of the smoothed curves. On a log x axis the grid is spaced evenly in log10.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from studio.core.maths.bands import CI95, STD, Band, band, grid_of
from studio.core.maths.smoothing import smooth
from studio.core.runs.seed_groups import SeedGroup, seed_groups
from studio.gui.plots.curve_data import Series

EACH_RUN = "runs"  # the band setting that draws every run's own line
BAND_CHOICES = {EACH_RUN: "Each run on its own", STD: "Mean ± 1 standard deviation",
                CI95: "Mean and the 95 % interval of the mean"}


def groups_among(params: Mapping[str, Mapping[str, Any]], order: list[str]) -> list[SeedGroup]:
    """The seed groups among the shown runs ``order`` (``params``: run → settings; runs without any are alone)."""
    return seed_groups({r: params[r] for r in order if params.get(r)})


def smoothed_values(s: Series, weight: float, smoothed: bool) -> np.ndarray:
    """A series' values as drawn: smoothed with ``weight`` where the metric is smoothed (continuing from the
    smoothing the last drawing kept), else as logged."""
    if not smoothed or weight <= 0 or not len(s):
        return s.values
    kept = s.smoothed
    before = kept if kept is not None and kept.weight == weight and len(kept.values) <= len(s) else None
    return smooth(s.values, weight, before).values


def log_grid(xs: list[np.ndarray], columns: int) -> np.ndarray:
    """``columns`` x values evenly spaced in log10 over the curves' positive x (or all of them, if fewer)."""
    positive = [x[np.isfinite(x) & (x > 0)] for x in xs]
    positive = [x for x in positive if len(x)]
    if not positive:
        return np.empty(0)
    union = np.unique(np.concatenate(positive))
    if len(union) <= columns:
        return union
    return np.geomspace(union[0], union[-1], columns)


def group_band(curves: list[tuple[np.ndarray, np.ndarray]], kind: str, columns: int, log_x: bool) -> Band:
    """The mean and band of a group's curves (x, y as drawn) on a grid of at most ``columns`` points."""
    xs = [x for x, _ in curves]
    grid = log_grid(xs, columns) if log_x else grid_of(xs, columns)
    return band(curves, grid, kind)


def member_curves(model: Any, group: SeedGroup, metric: str, smoothed: bool) -> list[tuple[np.ndarray, np.ndarray]]:
    """The group's runs' curves of ``metric`` on the model's x axis, each smoothed as drawn (runs without the
    metric left out)."""
    out = []
    for run_id in group.run_ids:
        s = model.series.get(run_id, {}).get(metric)
        if s is None or not len(s):
            continue
        out.append((model.x_values(run_id, s), smoothed_values(s, model.smoothing, smoothed)))
    return out
