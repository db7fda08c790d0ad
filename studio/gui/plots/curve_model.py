"""What the curves view shows, without Qt: the series per run and metric, the x axis (step, epoch, samples
seen, wall time; log x), the smoothing, which run has which colour and what the key says (``Key``), and the
decimation requests (``Job``) that ``curve_data.prepare`` turns into the arrays to draw. ``CurvesView``
(curves.py) forwards the user's intent here and draws what comes back.

Smoothing is TensorBoard's debiased EMA (``core/maths/smoothing.py``); it is computed with the decimation, on the
curve loader's thread for big selections.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from studio.core.vocab import Metric
from studio.gui.plots.curve_data import Drawn, Job, Prepared, Series, x_values
from studio.gui.plots.curve_key import KEY_NAMES, Key
from studio.gui.plots.palette import run_colour

# plot title, y-axis label (with its unit), then (metric name, line label, dashed?, per-epoch symbols?)
PLOTS = {
    "loss": ("Loss", "loss (nats)",
             [(Metric.TRAIN_LOSS, "train", False, False), (Metric.VAL_LOSS, "validation", True, True)]),
    "acc": ("Accuracy", "accuracy (fraction)",
            [(Metric.TRAIN_ACC, "train", False, False), (Metric.VAL_ACC, "validation", True, True)]),
    "lr": ("Learning rate", "learning rate (log)", [(Metric.LR, "lr", False, False)]),
    "throughput": ("Throughput", "samples/s", [(Metric.THROUGHPUT, "samples/s", False, False)]),
}
# Plots that appear only once a shown run has their metric: the sharpness curve is logged when
# train.sharpness_every > 0 (engine/callbacks/landscape.py).
OPTIONAL_PLOTS = {
    "sharpness": ("Sharpness", "top Hessian eigenvalue λmax", [(Metric.SHARPNESS, "λmax", False, True)]),
    "perplexity": ("Perplexity", "perplexity (next token)", [(Metric.TRAIN_PERPLEXITY, "train", False, False),
                                                            (Metric.VAL_PERPLEXITY, "validation", True, True)]),
}
ALL_PLOTS = {**PLOTS, **OPTIONAL_PLOTS}
PLOT_OF: dict[str, str] = {str(name): key for key, (_, _, metrics) in ALL_PLOTS.items() for name, *_ in metrics}
SMOOTHED = frozenset({Metric.TRAIN_LOSS, Metric.TRAIN_ACC, Metric.TRAIN_PERPLEXITY})
X_AXES = {"step": "step", "epoch": "epoch", "samples": "samples seen", "wall": "wall time (s)"}
INTERVAL_POINTS = 65  # logged_every reads a run's logging interval from this many first points
THICK_RUNS = 4  # with more runs shown the lines are drawn thinner: a 2 px line costs Qt ~6× a 1 px one to paint
INLINE_POINTS = 100_000  # full-resolution points below which a redraw is prepared at once on the GUI thread (≈ms)
MAX_COLUMNS = 1500  # decimation columns per curve (a plot's width in pixels, at most this): ≤ 4 points each
MIN_COLUMNS = 64
PLOT_POINTS = 20_000  # points one plot draws across all its curves at most (its paint stays well under 100 ms)
UNLAID_WIDTH = 800  # the pixel width assumed for a plot not laid out yet

Range = tuple[float, float]


@dataclass(frozen=True)
class PlotView:
    """What a plot shows now: its x range (view units: log10 on a log axis) when the user zoomed or panned it,
    None while it follows its data; and its width in pixels."""

    x_range: Range | None
    width: float


class CurveModel:
    """The shown runs' series and how to draw them; ``request`` makes the decimation job for the current state."""

    def __init__(self) -> None:
        self.series: dict[str, dict[str, Series]] = {}  # run_id → metric → full-resolution series
        self.order: list[str] = []  # shown runs, in colour order
        self.labels: dict[str, str] = {}
        self.batch_sizes: dict[str, int] = {}  # kept across selections (the samples axis)
        self.smoothing = 0.0
        self.x_mode = "step"
        self.log_x = False
        self.plots: list[str] = list(PLOTS)  # the plots shown, optional ones in the order their metric came
        self.unread: list[str] = []  # shown runs not read from the store yet
        self.unfitted: set[str] = set(self.plots)  # plots whose range has not yet been fitted to their data
        self.drawn_ranges: dict[str, Range | None] = {}  # plot → x view range last decimated for
        self.drawn_columns: dict[str, int] = {}  # plot → the pixel columns its curves were last decimated to
        self._pending: dict[str, tuple[Range | None, int]] = {}  # the same, for the request under way
        self._key_every: list[int] = []  # the logging intervals the key last named

    # --- runs and their points -------------------------------------------------------------------
    def clear(self) -> None:
        """No run, no optional plot, no range kept (the batch sizes stay: they belong to the runs)."""
        self.plots = list(PLOTS)
        self.refit()
        self.unread = []
        self.series.clear()
        self.order.clear()
        self.labels.clear()

    def add_run(self, run_id: str, label: str) -> bool:
        """Show run ``run_id`` (no points yet); False if it is shown already."""
        if run_id in self.series:
            return False
        self.series[run_id] = {}
        self.order.append(run_id)
        self.labels[run_id] = label
        return True

    def show(self, data: dict[str, dict[str, tuple]], labels: dict[str, str] | None = None,
             batch_sizes: dict[str, int] | None = None) -> None:
        """Replace what is shown with these runs' metrics (``run_id → name → (steps, values[, walls])``)."""
        self.clear()
        self.batch_sizes.update(batch_sizes or {})
        for run_id, metrics in data.items():
            self.add_run(run_id, (labels or {}).get(run_id, run_id))
            for name, columns in metrics.items():
                self._show_plot_of(name)
                self.series[run_id][name] = Series(columns[0], columns[1], columns[2] if len(columns) > 2 else None)

    def select(self, run_ids: list[str], labels: dict[str, str] | None = None) -> None:
        """Show these runs, to be read from the store (``unread``); runs shown and read already keep their series
        (and their live points)."""
        kept = {r: self.series[r] for r in run_ids if r in self.series and r not in self.unread}
        self.clear()
        for run_id in run_ids:
            self.add_run(run_id, (labels or {}).get(run_id, run_id))
            if run_id in kept:
                for name, s in kept[run_id].items():
                    self._show_plot_of(name)
                    s.dirty = True
                self.series[run_id] = kept[run_id]
        self.unread = [r for r in run_ids if r not in kept]

    def add_rows(self, run_id: str, rows: list) -> None:
        """Append live rows ``(step, name, value, wall)`` of a shown run; steps it has already are skipped (they
        came from the store). A new epoch moves the epoch axis of all the run's curves."""
        metrics = self.series.get(run_id)
        if metrics is None:
            return
        fresh: dict[str, tuple[list, list, list]] = {}
        for step, name, value, wall in rows:
            if name not in metrics:
                self._show_plot_of(name)
                metrics[name] = Series()
            columns = fresh.setdefault(name, ([], [], []))
            last = columns[0][-1] if columns[0] else metrics[name].last_step()
            if last is not None and step <= last:
                continue
            columns[0].append(step)
            columns[1].append(value)
            columns[2].append(wall)
        for name, (steps, values, walls) in fresh.items():
            metrics[name].append(steps, values, walls)
            if name == Metric.EPOCH and steps:
                self.mark_dirty(run_id)

    def install(self, run_id: str, read: dict[str, Series], batch: int) -> None:
        """A run read from the store becomes the run's series; live rows that came meanwhile follow it."""
        live = self.series.get(run_id)
        if live is None:
            return
        for name, s in read.items():
            self._show_plot_of(name)
            extra = live.get(name)
            if extra is not None and len(extra):
                last = s.last_step()
                newer = extra.steps > (last if last is not None else -np.inf)
                s.append(extra.steps[newer], extra.values[newer], extra.walls[newer])
        self.series[run_id] = {**live, **read}
        self.batch_sizes[run_id] = batch

    def _show_plot_of(self, metric: str) -> None:
        """Add the optional plot of ``metric`` the first time it arrives."""
        key = PLOT_OF.get(metric)
        if key in OPTIONAL_PLOTS and key not in self.plots:
            self.plots.append(key)
            self.unfitted.add(key)

    def set_labels(self, labels: dict[str, str]) -> None:
        """New names for shown runs (others are ignored)."""
        self.labels.update({k: v for k, v in labels.items() if k in self.labels})

    def full_count(self, run_id: str, name: str) -> int:
        """Points of a curve at full resolution."""
        s = self.series.get(run_id, {}).get(name)
        return 0 if s is None else len(s)

    # --- how they are drawn ----------------------------------------------------------------------
    def set_x_mode(self, mode: str) -> None:
        """``"step"``, ``"epoch"``, ``"samples"`` (step × batch size) or ``"wall"`` (seconds since the run's
        first metric)."""
        if mode not in X_AXES:
            raise ValueError(mode)
        self.x_mode = mode

    def set_log_x(self, on: bool) -> None:
        self.log_x = bool(on)

    def set_smoothing(self, weight: float) -> None:
        """The EMA weight of the per-step train curves (0: none)."""
        self.smoothing = float(weight)

    def x_values(self, run_id: str, s: Series) -> np.ndarray:
        """The x coordinates of a series of run ``run_id`` in the current x mode (at full resolution)."""
        run = {name: m.snapshot() for name, m in self.series.get(run_id, {}).items()}
        return x_values(self.x_mode, run, s.snapshot(), self.batch_sizes.get(run_id, np.nan))

    def colours(self) -> dict[str, str]:
        """Each shown run's palette colour, by its place in the selection (the view draws it in the theme)."""
        return {run_id: run_colour(i) for i, run_id in enumerate(self.order)}

    @property
    def thin_lines(self) -> bool:
        """More than ``THICK_RUNS`` runs are shown: their lines are drawn at half width."""
        return len(self.order) > THICK_RUNS

    def logged_every(self) -> list[int]:
        """The shown runs' distinct logging intervals in steps, read from their train-loss points (the median
        spacing: a window cut short at an epoch's or the run's end does not count). A run's interval is fixed,
        so its first ``INTERVAL_POINTS`` points tell it: this runs on the GUI thread at every redraw with new
        points, and must not grow with the run."""
        found = set()
        for metrics in self.series.values():
            s = metrics.get(Metric.TRAIN_LOSS)
            if s is not None and len(s) >= 2:
                first = s.steps[:INTERVAL_POINTS]
                found.add(max(1, int(np.median(np.diff(first)))))
        return sorted(found)

    def key(self, names: int = KEY_NAMES) -> Key:
        """What the key says now: the first ``names`` runs by name, the rest counted."""
        everyone = [(r, self.labels[r]) for r in self.order]
        self._key_every = self.logged_every()
        return Key(everyone[:names], max(0, len(everyone) - names), everyone, self._key_every)

    def key_outdated(self) -> bool:
        """Whether the logging intervals changed since the key was last made (a run's first points tell them)."""
        return self.logged_every() != self._key_every

    # --- decimation requests ---------------------------------------------------------------------
    def mark_dirty(self, run_id: str | None = None) -> None:
        """Every series (of ``run_id``, or of every run) is to be prepared again."""
        for rid, metrics in self.series.items():
            if run_id is None or rid == run_id:
                for s in metrics.values():
                    s.dirty = True

    def dirty(self) -> set[tuple[str, str]]:
        """The (run, metric) series that changed since they were last drawn."""
        return {(r, n) for r, metrics in self.series.items() for n, s in metrics.items() if s.dirty}

    def refit(self) -> None:
        """Every plot's range is to be fitted to its data again (new units, a new selection)."""
        self.unfitted = set(self.plots)
        self.drawn_ranges.clear()

    def series_in(self, plots: set[str]) -> set[tuple[str, str]]:
        """The (run, metric) series drawn in these plots."""
        return {(r, n) for r, m in self.series.items() for n in m if PLOT_OF.get(n) in plots}

    def columns(self, key: str, width: float) -> int:
        """Decimation columns for plot ``key``: its width in pixels (``UNLAID_WIDTH`` before it is laid out), at
        most ``MAX_COLUMNS``, fewer when many runs share the plot (``PLOT_POINTS`` across its curves)."""
        metrics = ALL_PLOTS[key][2]
        per_run = len(metrics) + (sum(m[0] in SMOOTHED for m in metrics) if self.smoothing > 0 else 0)
        budget = PLOT_POINTS // (4 * max(1, per_run * len(self.order)))
        pixels = int(width)
        return max(MIN_COLUMNS, min(MAX_COLUMNS, pixels if pixels > 10 else UNLAID_WIDTH, budget))

    def decimation_range(self, key: str, view: PlotView) -> Range | None:
        """The x range plot ``key`` is decimated for: the zoomed or panned view, None for the whole curve."""
        return None if key in self.unfitted else view.x_range

    def points(self, only: set[tuple[str, str]] | None = None) -> int:
        """Full-resolution points of the series ``only`` (None: all)."""
        return sum(len(s) for r, m in self.series.items() for n, s in m.items() if only is None or (r, n) in only)

    def inline(self, only: set[tuple[str, str]] | None = None) -> bool:
        """Whether preparing ``only`` is quick enough for the GUI thread: nothing to read, few points."""
        return not self.unread and self.points(only) <= INLINE_POINTS

    def request(self, generation: int, only: set[tuple[str, str]] | None,
                views: dict[str, PlotView]) -> Job:
        """The job that prepares the series ``only`` (None: all) for the plots as ``views`` show them. A zoomed
        plot is decimated for its view and half its width each side, at twice the columns, so a pan within that
        needs no new request."""
        ranges = {key: (self.decimation_range(key, views[key]), self.columns(key, views[key].width))
                  for key in self.plots}
        self._pending = ranges
        return Job(generation, {r: {n: s.snapshot() for n, s in m.items()} for r, m in self.series.items()}, only,
                   self.x_mode, self.log_x, self.smoothing, SMOOTHED, dict(self.batch_sizes), PLOT_OF,
                   {k: (None, c) if r is None else (widened(r), 2 * c) for k, (r, c) in ranges.items()})

    def settle(self, result: Prepared) -> list[tuple[str, str, Drawn]]:
        """A prepared request came (its runs read from the store ``install``ed first): the curves to draw. Series
        that grew while it was being prepared stay dirty for the next redraw."""
        self.unread = [r for r in self.unread if r not in result.loaded]
        for (run_id, name), n in result.counts.items():
            s = self.series.get(run_id, {}).get(name)
            if s is not None:
                s.dirty = len(s) != n
        return [(run_id, name, d) for (run_id, name), d in result.drawn.items()]

    def keep(self, run_id: str, name: str, d: Drawn) -> bool:
        """A curve is being drawn: False if it is no longer shown; its smoothing is kept to continue from."""
        s = self.series.get(run_id, {}).get(name)
        if s is None:
            return False
        if d.smoothed is not None and len(d.smoothed.values) <= len(s):
            s.smoothed = d.smoothed
        return True

    def drawn(self) -> None:
        """The request's curves are all on screen: its ranges and columns are what the plots show."""
        self.drawn_ranges.update({k: r for k, (r, _c) in self._pending.items()})
        self.drawn_columns.update({k: c for k, (_r, c) in self._pending.items()})

    def moved(self, views: dict[str, PlotView]) -> set[str]:
        """The plots whose view left what their curves were decimated for (a zoom or a pan)."""
        return {key for key in self.plots
                if not covers(self.drawn_ranges.get(key), self.decimation_range(key, views[key]))}

    def failed(self) -> None:
        """The read failed: nothing is left to read."""
        self.unread = []


def widened(view: Range) -> Range:
    """A zoomed view's range and half its width each side (a pan within that needs no new decimation)."""
    lo, hi = view
    return lo - (hi - lo) / 2, hi + (hi - lo) / 2


def covers(drawn: Range | None, view: Range | None) -> bool:
    """Whether the points decimated for view ``drawn`` still serve ``view``: both whole, or ``view`` within the
    widened range and zoomed by less than 1.5× either way."""
    if drawn is None or view is None:
        return drawn is None and view is None
    lo, hi = widened(drawn)
    width, drawn_width = view[1] - view[0], drawn[1] - drawn[0]
    return lo <= view[0] and view[1] <= hi and drawn_width / 1.5 <= width <= drawn_width * 1.5


def spread(low: float, high: float) -> Range:
    """A range around ``low…high`` that is never empty (one point: ±5 % of it, or ±0.5 around 0)."""
    if high > low:
        return low, high
    half = abs(low) * 0.05 or 0.5
    return low - half, high + half


def bounds(curves: list[tuple[np.ndarray, np.ndarray]], log_x: bool, log_y: bool) -> tuple[Range, Range] | None:
    """The x and y range of these curves' finite points in view units (log10 on a log axis, where only positive
    values count); None without any such point."""
    xs, ys = [], []
    for x_data, y_data in curves:
        x, y = np.asarray(x_data, dtype=float), np.asarray(y_data, dtype=float)
        if log_x:
            x = np.log10(np.where(x > 0, x, np.nan))
        if log_y:
            y = np.log10(np.where(y > 0, y, np.nan))
        keep = np.isfinite(x) & np.isfinite(y)
        xs.append(x[keep])
        ys.append(y[keep])
    x, y = (np.concatenate(xs), np.concatenate(ys)) if xs else (np.empty(0), np.empty(0))
    if not len(x):
        return None
    return (float(x.min()), float(x.max())), (float(y.min()), float(y.max()))
