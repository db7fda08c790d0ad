"""What the curves view shows, without Qt: the series per run and metric, the x axis (step, epoch, samples
seen, wall time; log x), the smoothing, which run has which colour and what the key says (``Key``), which metrics
are plotted (every metric a shown run logged may be: the known ones in their plots, any other in a plot of its
own; ``chosen``), the read-out of every shown run's value at the pointer (``readout``), and the decimation
requests (``Job``) that ``curve_data.prepare`` turns into the arrays to draw. ``CurvesView`` (curves.py) forwards
the user's intent here and draws what comes back.

Smoothing is TensorBoard's debiased EMA (``core/maths/smoothing.py``); it is computed with the decimation, on the
curve loader's thread for big selections.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from studio.core.maths.bands import BANDS, STD, Band
from studio.core.maths.smoothing import smooth
from studio.core.runs.seed_groups import SeedGroup
from studio.core.vocab import Metric
from studio.gui.plots.curve_data import Drawn, Job, Prepared, Series, x_values
from studio.gui.plots.curve_groups import BAND_CHOICES, EACH_RUN, group_band, groups_among, member_curves
from studio.gui.plots.curve_key import KEY_NAMES, Key
from studio.gui.plots.palette import run_colour

# plot title, y-axis label (what is measured, in what unit: short enough for a plot of the least height, 14
# characters or so, or the axis cuts it), then (metric name, line label, dashed?, per-epoch symbols?)
PLOTS = {
    "loss": ("Loss", "loss (nats)",
             [(Metric.TRAIN_LOSS, "train", False, False), (Metric.VAL_LOSS, "validation", True, True)]),
    "acc": ("Accuracy", "accuracy",
            [(Metric.TRAIN_ACC, "train", False, False), (Metric.VAL_ACC, "validation", True, True)]),
    "lr": ("Learning rate", "lr (log scale)", [(Metric.LR, "lr", False, False)]),
    "throughput": ("Throughput", "samples/s", [(Metric.THROUGHPUT, "samples/s", False, False)]),
}
# Plots that appear only once a shown run has their metric: the sharpness curve is logged when
# train.sharpness_every > 0 (engine/callbacks/landscape.py).
OPTIONAL_PLOTS = {
    "sharpness": ("Sharpness (top Hessian eigenvalue)", "λmax", [(Metric.SHARPNESS, "λmax", False, True)]),
    "perplexity": ("Perplexity (next token)", "perplexity", [(Metric.TRAIN_PERPLEXITY, "train", False, False),
                                                            (Metric.VAL_PERPLEXITY, "validation", True, True)]),
}
ALL_PLOTS = {**PLOTS, **OPTIONAL_PLOTS}
PLOT_OF: dict[str, str] = {str(name): key for key, (_, _, metrics) in ALL_PLOTS.items() for name, *_ in metrics}
CUSTOM = "metric:"  # the key of the plot of a logged metric without a plot of its own: this and its name
NOT_PLOTTED = frozenset({Metric.EPOCH.value})  # the epoch ends move the epoch axis; they are no curve
READOUT_RUNS = 12  # runs the read-out at the pointer names (the key's count): reading more would lag the pointer
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
PlotSpec = tuple[str, str, list[tuple[str, str, bool, bool]]]  # title, y label, (metric, line, dashed, symbols)


def plot_of(metric: str) -> str:
    """The key of the plot ``metric`` is drawn in: its known plot, else one of its own."""
    return PLOT_OF.get(metric) or CUSTOM + metric


def plot_spec(key: str) -> PlotSpec:
    """A plot's title, y-axis label and metrics (a metric's own plot: its name, its name, a solid line)."""
    if key in ALL_PLOTS:
        title, label, metrics = ALL_PLOTS[key]
        return title, label, [(str(m), line, dashed, symbols) for m, line, dashed, symbols in metrics]
    name = key.removeprefix(CUSTOM)
    return name, name, [(name, name, False, False)]


@dataclass(frozen=True)
class Reading:
    """One shown run's point nearest the pointer in one line of a plot: its x (data units), its value, and the
    smoothed value when that line is smoothed."""

    run_id: str
    label: str
    metric: str
    line: str
    x: float
    value: float
    smoothed: float | None = None


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
        self.choices: dict[str, bool] = {}  # metric → plotted, where the user chose (else ``chosen``'s default)
        self.arrived: dict[str, None] = {}  # the shown runs' metric names, in the order they came
        self.plots: list[str] = list(PLOTS)  # the plots shown, optional ones in the order their metric came
        self.unread: list[str] = []  # shown runs not read from the store yet
        self.unfitted: set[str] = set(self.plots)  # plots whose range has not yet been fitted to their data
        self.drawn_ranges: dict[str, Range | None] = {}  # plot → x view range last decimated for
        self.drawn_columns: dict[str, int] = {}  # plot → the pixel columns its curves were last decimated to
        self._pending: dict[str, tuple[Range | None, int]] = {}  # the same, for the request under way
        self._key_every: tuple[list[int], list[int]] = ([], [])  # the logging intervals the key last named
        self.scripted: set[str] = set()  # shown runs a script logged (not trained by Studio: no metric_interval)
        self.params: dict[str, dict] = {}  # run → its settings (seed groups), where known
        self.band_kind = STD  # a seed group's band (``curve_groups.BAND_CHOICES``; EACH_RUN: a line per run)
        self._groups: tuple[tuple[str, ...], list[SeedGroup]] = ((), [])  # (order, its groups), cached

    # --- runs and their points -------------------------------------------------------------------
    def clear(self) -> None:
        """No run, no optional plot, no range kept (the batch sizes stay: they belong to the runs)."""
        self.arrived.clear()
        self.plots = self._wanted_plots()
        self.refit()
        self.unread = []
        self.series.clear()
        self.order.clear()
        self.labels.clear()
        self.scripted = set()

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
        scripted = self.scripted & set(kept)
        self.clear()
        self.scripted = scripted
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

    def install(self, run_id: str, read: dict[str, Series], batch: int, scripted: bool = False) -> None:
        """A run read from the store becomes the run's series; live rows that came meanwhile follow it.
        ``scripted``: a script logged them (``curve_loader.read_run``)."""
        live = self.series.get(run_id)
        if live is None:
            return
        if scripted:
            self.scripted.add(run_id)
        else:
            self.scripted.discard(run_id)
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
        """Note ``metric`` the first time a shown run has it: its plot comes if it is chosen."""
        if metric not in self.arrived:
            self.arrived[metric] = None
            self._update_plots()

    # --- which metrics are plotted ---------------------------------------------------------------
    def chosen(self, metric: str) -> bool:
        """Whether ``metric`` is plotted: the user's choice, else yes for the metrics Studio has plots for and no
        for the others (a run may log dozens; the chooser lists them)."""
        return self.choices.get(metric, metric in PLOT_OF) and metric not in NOT_PLOTTED

    def logged(self) -> list[str]:
        """Every metric name the shown runs logged that can be plotted: the known ones in their plots' order,
        then the others by name."""
        order = {name: i for i, name in enumerate(PLOT_OF)}
        names = [m for m in self.arrived if m not in NOT_PLOTTED]
        return sorted(names, key=lambda m: (order.get(m, len(order)), m))

    def set_chosen(self, metric: str, on: bool) -> bool:
        """Plot ``metric`` or not; True if that changed what is plotted."""
        if self.chosen(metric) == bool(on):
            return False
        self.choices[metric] = bool(on)
        self._update_plots()
        self.mark_dirty()
        return True

    def set_choices(self, choices: dict[str, bool]) -> None:
        """The user's choices as remembered (metric → plotted); the others take their default."""
        self.choices = {str(k): bool(v) for k, v in choices.items()}
        self._update_plots()
        self.mark_dirty()

    def _wanted_plots(self) -> list[str]:
        """The plots to show: Studio's four while any of their metrics is chosen (before any point arrives,
        for a run starting), then the plot of each chosen metric a shown run logged, in the order they came."""
        keys = [k for k, (_, _, metrics) in PLOTS.items() if any(self.chosen(str(m)) for m, *_ in metrics)]
        for metric in self.arrived:
            key = plot_of(metric)
            if self.chosen(metric) and key not in keys:
                keys.append(key)
        return keys

    def _update_plots(self) -> None:
        keys = self._wanted_plots()
        self.unfitted = {k for k in self.unfitted if k in keys} | {k for k in keys if k not in self.plots}
        self.plots = keys

    def plotted_metrics(self) -> dict[str, str]:
        """Every metric plotted, known or not yet logged (a run being read may bring it), with its plot's key."""
        known = {m: key for m, key in PLOT_OF.items() if self.chosen(m)}
        return {**known, **{m: plot_of(m) for m, on in self.choices.items() if on and self.chosen(m)}}

    def plotted(self, key: str) -> list[tuple[str, str, bool, bool]]:
        """Plot ``key``'s chosen metrics: (metric, line label, dashed, per-epoch symbols)."""
        return [m for m in plot_spec(key)[2] if self.chosen(m[0])]

    # --- seed groups -----------------------------------------------------------------------------
    def set_params(self, params: dict[str, dict]) -> None:
        """The settings of runs (shown or to be shown): runs differing only in the seed form a group."""
        self.params.update(params)
        self._groups = ((), [])
        self.mark_dirty()

    def set_band(self, kind: str) -> None:
        """How a seed group is drawn: ``"std"`` (mean ± 1 std), ``"ci95"`` (mean, 95 % interval of the mean) or
        ``"runs"`` (every run's own line)."""
        if kind not in BAND_CHOICES:
            raise ValueError(f"a band is one of {', '.join(BAND_CHOICES)}, not {kind!r}")
        self.band_kind = kind
        self.mark_dirty()

    def groups(self) -> list[SeedGroup]:
        """The seed groups among the shown runs drawn as a band (none while every run is drawn on its own)."""
        if self.band_kind == EACH_RUN:
            return []
        order = tuple(self.order)
        if self._groups[0] != order:
            self._groups = (order, groups_among(self.params, self.order))
        return self._groups[1]

    def grouped(self) -> dict[str, SeedGroup]:
        """``run → its group`` for the shown runs drawn as part of a band (their own lines are not drawn)."""
        return {r: g for g in self.groups() for r in g.run_ids}

    def bands(self, key: str, columns: int) -> dict[tuple[str, str], Band]:
        """The mean and band of each group and chosen metric of plot ``key`` (``(group id, metric) → Band``):
        each run on the current x axis and smoothed first, on a grid of at most ``columns`` points."""
        out = {}
        for g in self.groups():
            for name, *_ in self.plotted(key):
                curves = member_curves(self, g, name, name in SMOOTHED)
                if curves:
                    out[(g.id, name)] = group_band(curves, self.band_kind, columns, self.log_x)
        return out

    # --- the read-out at the pointer -------------------------------------------------------------
    def readout(self, key: str, x: float, runs: int = READOUT_RUNS) -> list[Reading]:
        """For the first ``runs`` shown runs and each chosen line of plot ``key``: the point nearest ``x`` (view
        units: log10 on a log x axis) at full resolution, with its smoothed value when the line is smoothed."""
        out = []
        for run_id in self.order[:runs]:
            metrics = self.series.get(run_id, {})
            for name, line, _dashed, _symbols in self.plotted(key):
                s = metrics.get(name)
                if s is None or not len(s):
                    continue
                found = self._nearest(run_id, s, x)
                if found is None:
                    continue
                i, at = found
                smoothed = self._smoothed_at(s, i) if self.smoothing > 0 and name in SMOOTHED else None
                out.append(Reading(run_id, self.labels.get(run_id, run_id), name, line, at, float(s.values[i]),
                                   smoothed))
        return out

    def _nearest(self, run_id: str, s: Series, x: float) -> tuple[int, float] | None:
        """The index of the point of ``s`` nearest ``x`` (view units) and its x in data units. Where the x axis
        is an ordered array of the series times a scale plus an offset (steps; samples seen: steps × the batch
        size; wall time: the wall times less the run's start, when they never step back) a binary search finds
        it, so the read-out keeps up with the pointer over runs of millions of points; otherwise (epochs, a
        resumed run's wall times) every point is compared."""
        axis = self._ordered_axis(run_id, s)
        if axis is not None and len(s):
            values, scale, offset = axis
            target = 10 ** x if self.log_x else x
            j = int(np.searchsorted(values, (target - offset) / scale))
            near = [k for k in (j - 1, j)
                    if 0 <= k < len(values) and (not self.log_x or values[k] * scale + offset > 0)]
            if near:
                xs = values[near] * scale + offset
                ux = np.log10(xs) if self.log_x else xs
                best = int(np.argmin(np.abs(ux - x)))
                return near[best], float(xs[best])
        xs = self.x_values(run_id, s)
        ok = np.isfinite(xs) & (xs > 0 if self.log_x else True)
        if not ok.any():
            return None
        where = np.flatnonzero(ok)
        ux = np.log10(xs[where]) if self.log_x else xs[where]
        k = int(where[np.argmin(np.abs(ux - x))])
        return k, float(xs[k])

    def _ordered_axis(self, run_id: str, s: Series) -> tuple[np.ndarray, float, float] | None:
        """(ordered values, scale, offset) with x = values × scale + offset, or None where x is not so."""
        if self.x_mode == "step":
            return s.steps, 1.0, 0.0
        if self.x_mode == "samples":
            batch = float(self.batch_sizes.get(run_id, np.nan))
            return (s.steps, batch, 0.0) if np.isfinite(batch) and batch > 0 else None
        if self.x_mode == "wall" and s.walls_ordered():
            starts = [float(m.walls[0]) for m in self.series.get(run_id, {}).values()
                      if len(m) and np.isfinite(m.walls[0])]
            return (s.walls, 1.0, -min(starts)) if starts else None
        return None

    def _smoothed_at(self, s: Series, i: int) -> float:
        """The smoothed value of point ``i`` (the last drawing's, or computed up to it: the EMA looks back only)."""
        kept = s.smoothed
        if kept is not None and kept.weight == self.smoothing and len(kept.values) > i:
            return float(kept.values[i])
        return float(smooth(s.values[: i + 1], self.smoothing).values[-1])

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
        """Each shown run's palette colour, by its place in the selection (the view draws it in the theme); the
        runs of a seed group drawn as a band take its first run's colour (the band's)."""
        own = {run_id: run_colour(i) for i, run_id in enumerate(self.order)}
        return {**own, **{r: own[g.run_ids[0]] for r, g in self.grouped().items()}}

    @property
    def thin_lines(self) -> bool:
        """More than ``THICK_RUNS`` runs are shown: their lines are drawn at half width."""
        return len(self.order) > THICK_RUNS

    def logged_every(self, scripted: bool = False) -> list[int]:
        """The shown runs' distinct logging intervals in steps, read from their train-loss points (the median
        spacing: a window cut short at an epoch's or the run's end does not count): of the runs Studio trained,
        or (``scripted``) of those a script logged. A run's interval is fixed, so its first ``INTERVAL_POINTS``
        points tell it: this runs on the GUI thread at every redraw with new points, and must not grow with the
        run."""
        found = set()
        for run_id, metrics in self.series.items():
            if (run_id in self.scripted) != scripted:
                continue
            s = metrics.get(Metric.TRAIN_LOSS)
            if s is not None and len(s) >= 2:
                first = s.steps[:INTERVAL_POINTS]
                found.add(max(1, int(np.median(np.diff(first)))))
        return sorted(found)

    def key(self, names: int = KEY_NAMES) -> Key:
        """What the key says now: the first ``names`` runs by name, the rest counted."""
        grouped = self.grouped()
        everyone = [(r, grouped[r].name if r in grouped else self.labels[r]) for r in self.order
                    if r not in grouped or grouped[r].run_ids[0] == r]  # a seed group once, by its name
        self._key_every = (self.logged_every(), self.logged_every(scripted=True))
        band = BANDS[self.band_kind] if grouped else ""
        return Key(everyone[:names], max(0, len(everyone) - names), everyone, *self._key_every, band)

    def key_outdated(self) -> bool:
        """Whether the logging intervals changed since the key was last made (a run's first points tell them)."""
        return (self.logged_every(), self.logged_every(scripted=True)) != self._key_every

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
        return {(r, n) for r, m in self.series.items() for n in m if self.chosen(n) and plot_of(n) in plots}

    def columns(self, key: str, width: float) -> int:
        """Decimation columns for plot ``key``: its width in pixels (``UNLAID_WIDTH`` before it is laid out), at
        most ``MAX_COLUMNS``, fewer when many runs share the plot (``PLOT_POINTS`` across its curves)."""
        metrics = self.plotted(key) or plot_spec(key)[2]
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
        drawn = self.plotted_metrics()
        return Job(generation, {r: {n: s.snapshot() for n, s in m.items()} for r, m in self.series.items()}, only,
                   self.x_mode, self.log_x, self.smoothing, SMOOTHED, dict(self.batch_sizes), drawn,
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
        if d.pyramid is not None and d.pyramid.n <= len(s) and (s.pyramid is None or s.pyramid.n < d.pyramid.n):
            s.pyramid = d.pyramid  # a series' first points never change: it stays valid as it grows
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
