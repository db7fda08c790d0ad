"""Live training curves: loss, accuracy, learning rate and throughput.

A selection's curves are read from the run store, smoothed and decimated (min/max per pixel column, at the current
zoom) on the curve loader's thread (``curve_loader.py``, ``curve_data.py``); the GUI thread only hands finished
arrays to pyqtgraph, and a newer request (selection, x axis, smoothing, log x, zoom) supersedes an older one. Full
resolution stays in numpy arrays here; zooming in re-decimates the visible range from it. Live data arrive in
batches (``add_rows``), are appended to those arrays in chunks, and a timer redraws the curves that changed at
~30 Hz (small work inline, big work on the loader). Several runs overlay, one colour each (``colours()``: the
run list shows the same colour as its key); the key above the plots names the runs and the line styles, so no
legend covers the data.
The x axis is the step, the epoch, the samples seen (the fair axis for comparing batch sizes) or the wall
time, optionally logarithmic. An EMA smoothing (TensorBoard's, debiased at the start) applies to the
per-step train curves, with the raw curve drawn faint behind. Before any run the plots give way to a hint.
"""

from __future__ import annotations

import html
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from studio.core.vocab import Metric
from studio.gui.plots.axes import plain_numbers
from studio.gui.plots.curve_data import Job, Prepared, Series, prepare, x_values
from studio.gui.plots.curve_loader import CurveLoader
from studio.gui.plots.log_axis import LogAxis
from studio.gui.plots.palette import run_colour
from studio.gui.session.theme import curve_colour
from studio.gui.widgets.forms import TidySpinBox

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
SMOOTHED = {Metric.TRAIN_LOSS, Metric.TRAIN_ACC, Metric.TRAIN_PERPLEXITY}
INTERVAL_POINTS = 65  # curves.logged_every reads a run's logging interval from this many first points
X_AXES = {"step": "step", "epoch": "epoch", "samples": "samples seen", "wall": "wall time (s)"}
HINT = ("No run to show yet.\n\nPress Train (Ctrl+Return) to start one with the settings on the left,\n"
        "or select runs in the list below (Ctrl/Shift-click to overlay several).")
KEY_NAMES = 12  # runs named in the colour key above the plots; the rest are counted, and named in its tooltip
RAW_ALPHA = 60  # the unsmoothed curve behind a smoothed one
# Normal and presentation (projector) styles: line width, symbol size, title/axis/tick/key font sizes.
STYLES = {False: (2, 6, "11pt", "9pt", 9, 9), True: (4, 11, "20pt", "16pt", 15, 15)}
INLINE_POINTS = 100_000  # full-resolution points below which a redraw is prepared at once on the GUI thread (≈ms)
MAX_COLUMNS = 1500  # decimation columns per curve (a plot's width in pixels, at most this): ≤ 4 points each
MIN_COLUMNS = 64
PLOT_POINTS = 20_000  # points one plot draws across all its curves at most (its paint stays well under 100 ms)
CURVES_PER_TURN = 60  # curves handed to pyqtgraph per event-loop turn (each setData ~0.5 ms)
RUNS_PER_TURN = 6  # a big selection makes its runs' plot items this many runs per event-loop turn (~1 ms an item)
THICK_RUNS = 4  # with more runs shown the lines are drawn thinner: a 2 px line costs Qt ~6× a 1 px one to paint
ZOOM_SETTLE_MS = 120  # a zoom or pan re-decimates once the view has been still this long
ALL_PLOTS = {**PLOTS, **OPTIONAL_PLOTS}
PLOT_OF: dict[str, str] = {str(name): key for key, (_, _, metrics) in ALL_PLOTS.items() for name, *_ in metrics}


def _spread(low: float, high: float) -> tuple[float, float]:
    """A range around ``low…high`` that is never empty (one point: ±5 % of it, or ±0.5 around 0)."""
    if high > low:
        return low, high
    half = abs(low) * 0.05 or 0.5
    return low - half, high + half


class CurvesView(QWidget):
    """A grid of plots under a colour key; one colour per shown run.

    ``loading`` is true while the latest request (selection, x axis, smoothing, log x, zoom) is being prepared on
    the loader's thread; ``curves_drawn`` is emitted when its curves are on screen, ``load_failed`` says why not."""

    curves_drawn = Signal()
    load_failed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.series: dict[str, dict[str, Series]] = {}  # run_id → metric → full-resolution series
        self.items: dict[tuple[str, str], pg.PlotDataItem] = {}
        self.raw_items: dict[tuple[str, str], pg.PlotDataItem] = {}
        self.order: list[str] = []
        self.labels: dict[str, str] = {}
        self.batch_sizes: dict[str, int] = {}
        self.smoothing = 0.0
        self.x_mode = "step"
        self.log_x = False
        self.presentation = False
        self._unfitted: set[str] = set()  # plots whose range has not yet been fitted to their data
        self._shown_every: list[int] = []  # the logging intervals the key names
        self.loader = CurveLoader(self)
        self.loader.done.connect(self._apply)
        self.loader.failed.connect(self._failed)
        self.loading = False
        self._store: Any = None  # where the runs still being read come from
        self._unread: list[str] = []  # selected runs not read from the store yet
        self._drawn_ranges: dict[str, tuple[float, float] | None] = {}  # plot → x view range last decimated for
        self.drawn_columns: dict[str, int] = {}  # plot → the pixel columns its curves were last decimated to
        self._pending_ranges: dict[str, tuple[float, float] | None] = {}
        self._pending_columns: dict[str, int] = {}
        self._zoom_timer = QTimer(self)
        self._zoom_timer.setSingleShot(True)
        self._zoom_timer.setInterval(ZOOM_SETTLE_MS)
        self._zoom_timer.timeout.connect(self._on_zoom)
        self._deferred: list[str] = []  # shown runs whose plot items are still to be made
        self._to_draw: list[tuple[str, str, Any]] = []  # prepared curves still to hand to pyqtgraph
        self._items_timer = QTimer(self)
        self._items_timer.setSingleShot(True)
        self._items_timer.setInterval(0)
        self._items_timer.timeout.connect(self._make_some_items)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        bar = QHBoxLayout()
        bar.addWidget(QLabel("x axis"))
        self.x_box = QComboBox()
        self.x_box.setObjectName("x_axis")
        for key, text in X_AXES.items():
            self.x_box.addItem(text, key)
        self.x_box.setToolTip("What the x axis counts: optimizer steps, epochs, samples seen (compares runs with "
                              "different batch sizes fairly) or seconds since the run started")
        self.x_box.currentIndexChanged.connect(lambda _i: self.set_x_mode(self.x_box.currentData()))
        bar.addWidget(self.x_box)
        self.log_x_box = QCheckBox("log x")
        self.log_x_box.setObjectName("log_x")
        self.log_x_box.setToolTip("A logarithmic x axis")
        self.log_x_box.toggled.connect(self.set_log_x)
        bar.addWidget(self.log_x_box)
        bar.addSpacing(12)
        bar.addWidget(QLabel("Smoothing"))
        self.smooth_box = TidySpinBox()
        self.smooth_box.setObjectName("smoothing")
        self.smooth_box.setRange(0.0, 0.99)
        self.smooth_box.setSingleStep(0.1)
        self.smooth_box.setToolTip("Exponential moving average of the per-step train curves, debiased at the start "
                                   "(as in TensorBoard); the raw curve stays faint behind")
        self.smooth_box.valueChanged.connect(self.set_smoothing)
        bar.addWidget(self.smooth_box)
        bar.addSpacing(12)
        self.loading_hint = QLabel("Loading curves…")
        self.loading_hint.setObjectName("curves_loading")
        self.loading_hint.setToolTip("Reading, smoothing and thinning the selected runs' curves; the window stays "
                                     "usable meanwhile")
        self.loading_hint.setVisible(False)
        bar.addWidget(self.loading_hint)
        bar.addStretch(1)
        layout.addLayout(bar)
        self.key = QLabel("")
        self.key.setObjectName("curve_key")
        self.key.setWordWrap(True)
        self.key.setTextFormat(Qt.TextFormat.RichText)
        self.key.setToolTip("The colour of each shown run (the run list shows the same swatch)")
        layout.addWidget(self.key)
        self.graphics = pg.GraphicsLayoutWidget()
        self.hint = QLabel(HINT)
        self.hint.setObjectName("curves_hint")
        self.hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.hint.setWordWrap(True)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.hint)
        self.stack.addWidget(self.graphics)
        layout.addWidget(self.stack, 1)
        self.plots: dict[str, pg.PlotItem] = {}
        for i, key in enumerate(PLOTS):
            self._add_plot(key, row=i // 2, col=i % 2)
        self._update_key()
        self.timer = QTimer(self)
        self.timer.setInterval(33)
        self.timer.timeout.connect(self.redraw)
        self.timer.start()

    def _add_plot(self, key: str, row: int, col: int, colspan: int = 1) -> pg.PlotItem:
        title, y_label, _ = {**PLOTS, **OPTIONAL_PLOTS}[key]
        axes = {"left": LogAxis("left"), "bottom": LogAxis("bottom")}
        plot = self.graphics.addPlot(row=row, col=col, colspan=colspan, title=title, axisItems=axes)
        plot.showGrid(x=True, y=True, alpha=0.25)
        plot.setLabel("bottom", X_AXES[self.x_mode])
        plot.setLabel("left", y_label)
        for name in ("left", "bottom"):
            plain_numbers(plot.getAxis(name))  # "accuracy (x0.001)" with ticks 500…800 misleads
        plot.setDownsampling(auto=False)  # the curves arrive decimated per pixel column (curve_data.prepare)
        plot.getViewBox().sigXRangeChanged.connect(lambda *_: self._zoom_timer.start())
        if key == "lr":
            plot.setLogMode(y=True)  # rates span decades (warm-up, decay)
        plot.setLogMode(x=self.log_x)
        self.plots[key] = plot
        self._unfitted.add(key)
        self._style_plot(key, plot)
        return plot

    def _ensure_optional_plot(self, metric: str) -> None:
        """Add an optional plot (and its curves for every shown run) the first time its metric arrives."""
        for key, (title, y_label, metrics) in OPTIONAL_PLOTS.items():
            if key in self.plots or metric not in {m[0] for m in metrics}:
                continue
            row = (len(PLOTS) + 1) // 2 + sum(k in self.plots for k in OPTIONAL_PLOTS)
            self._add_plot(key, row=row, col=0, colspan=2)
            for index, run_id in enumerate(self.order):
                if run_id not in self._deferred:  # those get every plot's items when their turn comes
                    self._add_items(run_id, index, {key: (title, y_label, metrics)})

    # --- data --------------------------------------------------------------------------------
    def clear(self) -> None:
        """Show nothing: no curve, no optional plot (a text run's Perplexity goes with it), no range kept."""
        for key in [k for k in self.plots if k in OPTIONAL_PLOTS]:
            self.graphics.removeItem(self.plots.pop(key))
        for plot in self.plots.values():
            plot.clear()
        self._unfitted = set(self.plots)  # the next points set the ranges, not the previous run's axes
        self._drawn_ranges.clear()
        self._unread = []
        self._deferred.clear()
        self.series.clear()
        self.items.clear()
        self.raw_items.clear()
        self.order.clear()
        self.labels.clear()
        self._update_key()

    def show_runs(self, data: dict[str, dict[str, tuple]], labels: dict[str, str] | None = None,
                  batch_sizes: dict[str, int] | None = None) -> None:
        """Replace what is shown with these runs' metrics (``run_id → name → (steps, values[, walls])``)."""
        self.clear()
        self.batch_sizes.update(batch_sizes or {})
        for run_id, metrics in data.items():
            self.add_run(run_id, (labels or {}).get(run_id, run_id))
            for name, columns in metrics.items():
                self._ensure_optional_plot(name)
                self.series[run_id][name] = Series(columns[0], columns[1], columns[2] if len(columns) > 2 else None)
        self._restyle_lines()
        self._refresh()

    def load_runs(self, store: Any, run_ids: list[str], labels: dict[str, str] | None = None) -> None:
        """Show these runs from the run store: the key at once, the curves once the loader has read and prepared
        them (``curves_drawn``). Runs shown already keep their arrays (and their live points)."""
        kept = {r: self.series[r] for r in run_ids if r in self.series and r not in self._unread}
        self.clear()
        self._store = store
        for i, run_id in enumerate(run_ids):
            self.add_run(run_id, (labels or {}).get(run_id, run_id), defer=i >= RUNS_PER_TURN)
            if run_id in kept:
                for name, s in kept[run_id].items():
                    self._ensure_optional_plot(name)
                    s.dirty = True
                self.series[run_id] = kept[run_id]
        self._unread = [r for r in run_ids if r not in kept]
        self._restyle_lines()
        self._refresh()

    def wait_drawn(self, timeout_s: float = 60.0) -> bool:
        """Process events until the latest request is on screen (headless renders); False on timeout."""
        import time

        from PySide6.QtWidgets import QApplication

        deadline = time.monotonic() + timeout_s
        while self.loading and time.monotonic() < deadline:
            QApplication.processEvents()
            time.sleep(0.005)
        return not self.loading

    def add_run(self, run_id: str, label: str, defer: bool = False) -> None:
        """Show run ``run_id`` (its points come with ``add_rows`` or a load); ``defer``: make its plot items in a
        later event-loop turn (a big selection spreads that work instead of stalling the window)."""
        if run_id in self.series:
            return
        self.series[run_id] = {}
        self.order.append(run_id)
        self.labels[run_id] = label
        if defer:
            self._deferred.append(run_id)
            self._items_timer.start()
        else:
            self._make_items(run_id)
        if len(self.order) == THICK_RUNS + 1:
            self._restyle_lines()
        self._update_key()

    def _make_items(self, run_id: str) -> None:
        plots = {k: v for k, v in ALL_PLOTS.items() if k in self.plots}
        self._add_items(run_id, self.order.index(run_id), plots)

    def _make_some_items(self) -> None:
        """The timer's turn: items for the next ``RUNS_PER_TURN`` deferred runs."""
        for run_id in self._deferred[:RUNS_PER_TURN]:
            self._make_items(run_id)
        del self._deferred[:RUNS_PER_TURN]
        if self._deferred:
            self._items_timer.start()

    def _flush_items(self) -> None:
        """Every deferred run's items now (curves are about to be drawn)."""
        for run_id in self._deferred:
            self._make_items(run_id)
        self._deferred.clear()

    def set_labels(self, labels: dict[str, str]) -> None:
        """New names for shown runs (renamed in the run list)."""
        self.labels.update({k: v for k, v in labels.items() if k in self.labels})
        self._update_key()

    def colours(self) -> dict[str, str]:
        """Each shown run's curve colour (the run list draws it as the run's swatch)."""
        return {run_id: curve_colour(run_colour(i)) for i, run_id in enumerate(self.order)}

    def _line_width(self) -> int:
        """The style's line width, halved when more than ``THICK_RUNS`` runs are shown."""
        width = STYLES[self.presentation][0]
        return width if len(self.order) <= THICK_RUNS else max(1, width // 2)

    def _restyle_lines(self) -> None:
        """Line widths and symbol sizes after the style or the number of runs changed."""
        width, symbol_size = self._line_width(), STYLES[self.presentation][1]
        for item in self.items.values():
            if item.opts["pen"].widthF() != width:
                pen = pg.mkPen(item.opts["pen"])
                pen.setWidthF(width)
                item.setPen(pen)
            if item.opts.get("symbol") and item.opts.get("symbolSize") != symbol_size:
                item.setSymbolSize(symbol_size)

    def _add_items(self, run_id: str, index: int, plots: dict) -> None:
        colour = curve_colour(run_colour(index))
        width, symbol_size = self._line_width(), STYLES[self.presentation][1]
        for key, (_, _, metrics) in plots.items():
            for name, _line, dashed, symbols in metrics:
                style = Qt.PenStyle.DashLine if dashed else Qt.PenStyle.SolidLine
                pen = pg.mkPen(colour, width=width, style=style)
                kwargs = ({"symbol": "o", "symbolSize": symbol_size, "symbolBrush": colour, "symbolPen": colour}
                          if symbols else {})
                if name in SMOOTHED:
                    faint = QColor(colour)
                    faint.setAlpha(RAW_ALPHA)
                    raw = self.plots[key].plot([], [], pen=pg.mkPen(faint, width=max(1, width // 2)),
                                                 dynamicRangeLimit=None)
                    raw.setZValue(-1)
                    raw.setVisible(False)
                    self.raw_items[(run_id, name)] = raw
                item = self.plots[key].plot([], [], pen=pen, dynamicRangeLimit=None, **kwargs)
                item.setProperty("symbols", bool(symbols))
                self.items[(run_id, name)] = item

    def add_rows(self, run_id: str, rows: list) -> None:
        """Append live rows ``(step, name, value, wall)``; drawn at the next timer tick. Rows of a run still being
        read wait here and follow what the store had."""
        if run_id not in self.series:
            return
        metrics = self.series[run_id]
        fresh: dict[str, tuple[list, list, list]] = {}
        for step, name, value, wall in rows:
            if name not in metrics:
                self._ensure_optional_plot(name)
                metrics[name] = Series()
            columns = fresh.setdefault(name, ([], [], []))
            last = columns[0][-1] if columns[0] else metrics[name].last_step()
            if last is not None and step <= last:
                continue  # already loaded from the run store when the run was selected
            columns[0].append(step)
            columns[1].append(value)
            columns[2].append(wall)
        for name, (steps, values, walls) in fresh.items():
            metrics[name].append(steps, values, walls)
            if name == "epoch" and steps:  # the epoch axis of every curve of this run moves
                self._mark_dirty(run_id)

    def _mark_dirty(self, run_id: str | None = None) -> None:
        for rid, metrics in self.series.items():
            if run_id is None or rid == run_id:
                for s in metrics.values():
                    s.dirty = True

    def set_smoothing(self, weight: float) -> None:
        self.smoothing = weight
        self._refresh(fit=False)

    def set_x_mode(self, mode: str) -> None:
        """``"step"``, ``"epoch"``, ``"samples"`` (step × batch size) or ``"wall"`` (seconds since the run's
        first metric)."""
        if mode not in X_AXES:
            raise ValueError(mode)
        self.x_mode = mode
        if self.x_box.currentData() != mode:
            blocked = self.x_box.blockSignals(True)  # its signal would call this again
            self.x_box.setCurrentIndex(list(X_AXES).index(mode))
            self.x_box.blockSignals(blocked)
        for plot in self.plots.values():
            plot.setLabel("bottom", X_AXES[mode])
        self._restyle_axes()
        self._refresh()

    def set_log_x(self, on: bool) -> None:
        self.log_x = bool(on)
        if self.log_x_box.isChecked() != self.log_x:
            blocked = self.log_x_box.blockSignals(True)
            self.log_x_box.setChecked(self.log_x)
            self.log_x_box.blockSignals(blocked)
        for plot in self.plots.values():
            plot.setLogMode(x=self.log_x)
        self._refresh()

    def x_values(self, run_id: str, s: Series) -> np.ndarray:
        """The x coordinates of a series in the current x-axis mode (at full resolution)."""
        run = {name: m.snapshot() for name, m in self.series.get(run_id, {}).items()}
        return x_values(self.x_mode, run, s.snapshot(), self.batch_sizes.get(run_id, np.nan))

    def set_presentation(self, on: bool) -> None:
        """Projector style: larger titles, axis labels, ticks and key; thicker lines and bigger symbols."""
        self.presentation = bool(on)
        for key, plot in self.plots.items():
            self._style_plot(key, plot)
        self._restyle_lines()
        self._update_key()

    def _style_plot(self, key: str, plot: pg.PlotItem) -> None:
        title, label, tick, _ = STYLES[self.presentation][2:]
        plot.setTitle({**PLOTS, **OPTIONAL_PLOTS}[key][0], size=title)
        for name in ("bottom", "left"):
            axis = plot.getAxis(name)
            axis.labelStyle["font-size"] = label
            axis.setLabel(axis.labelText, **axis.labelStyle)
            font = QFont()
            font.setPointSize(tick)
            axis.setTickFont(font)

    def _restyle_axes(self) -> None:
        for key, plot in self.plots.items():
            self._style_plot(key, plot)

    def _update_key(self) -> None:
        """The line above the plots: a colour swatch and name per run, and what solid and dashed mean."""
        self.stack.setCurrentWidget(self.graphics if self.order else self.hint)
        size = STYLES[self.presentation][5]
        font = QFont(self.key.font())
        font.setPointSize(size)
        self.key.setFont(font)
        colours = self.colours()
        runs = [f"<span style='color:{c}; font-size:{size + 4}pt'>■</span>&nbsp;{html.escape(self.labels[r])}"
                for r, c in list(colours.items())[:KEY_NAMES]]
        if len(colours) > KEY_NAMES:  # 60 names took most of the plots' height at 1024×768: the rest on hover
            runs.append(f"<i>… and {len(colours) - KEY_NAMES} more (hover here for every name)</i>")
        self.key.setToolTip("<br>".join(f"<span style='color:{c}'>■</span> {html.escape(self.labels[r])}"
                                        for r, c in colours.items()) if len(colours) > KEY_NAMES else
                            "The colour of each shown run (the run list shows the same swatch)")
        self._shown_every = self.logged_every()
        every = " or ".join(str(n) for n in self._shown_every)
        train = (f"solid: train, a point every {every} step{'s' if every != '1' else ''} (train.metric_interval)"
                 if every else "solid: train")
        lines = f"{train} · dashed, dots: validation (per epoch)"
        self.key.setText("&nbsp;&nbsp;&nbsp;".join(runs) + (f"&nbsp;&nbsp;&nbsp;<i>{lines}</i>" if runs else ""))
        self.key.setVisible(bool(runs))

    def restyle_key(self) -> None:
        """Colours follow the theme (the black run is drawn light on a dark background)."""
        self._update_key()

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

    # --- drawing -----------------------------------------------------------------------------
    def redraw(self) -> None:
        """Draw the series that changed (the timer's tick): live points, a run's epochs. While a request is being
        prepared nothing is started: its result (and the next tick) cover it."""
        if self.loading:
            return
        dirty = {(r, n) for r, metrics in self.series.items() for n, s in metrics.items() if s.dirty}
        if not dirty:
            return
        if self.logged_every() != self._shown_every:
            self._update_key()  # the first points of a run tell how often it logs
        self._request(dirty)

    def _refresh(self, fit: bool = True) -> None:
        """Prepare every shown curve again (a new selection, x axis, log x, smoothing); ``fit``: fit the ranges."""
        if fit:
            self._unfitted = set(self.plots)
            self._drawn_ranges.clear()
        self._mark_dirty()
        self._request(None)

    def _request(self, only: set[tuple[str, str]] | None) -> None:
        """Prepare the series ``only`` (None: all), inline when small and nothing is to be read, else on the
        loader's thread; a newer request supersedes this one."""
        ranges = {key: (self._decimation_range(key), self._columns(key)) for key in self.plots}
        job = Job(self.loader.next_generation(),
                  {r: {n: s.snapshot() for n, s in m.items()} for r, m in self.series.items()}, only,
                  self.x_mode, self.log_x, self.smoothing, frozenset(SMOOTHED), dict(self.batch_sizes), PLOT_OF,
                  {k: (None if v[0] is None else _widened(v[0]), v[1] * (1 if v[0] is None else 2))
                   for k, v in ranges.items()}, )
        self._pending_ranges = {k: v[0] for k, v in ranges.items()}
        self._pending_columns = {k: v[1] for k, v in ranges.items()}
        points = sum(len(s) for r, m in self.series.items() for n, s in m.items() if only is None or (r, n) in only)
        if not self._unread and points <= INLINE_POINTS:
            self._flush_items()
            self._apply(prepare(job))
            return
        self._set_loading(True)
        self.loader.submit(job, self._store, list(self._unread))

    def _set_loading(self, on: bool) -> None:
        self.loading = on
        self.loading_hint.setVisible(on)

    def _apply(self, result: Prepared) -> None:
        """Hand a prepared request's arrays to pyqtgraph (a superseded one is dropped)."""
        if result.generation != self.loader.generation:
            return
        self._flush_items()
        for run_id in result.loaded:
            got = self.loader.take(run_id)
            if got is not None and run_id in self.series:
                self._install(run_id, *got)
        self._unread = [r for r in self._unread if r not in result.loaded]
        for (run_id, name), n in result.counts.items():
            s = self.series.get(run_id, {}).get(name)
            if s is not None:
                s.dirty = len(s) != n  # points that came while it was being prepared: the next tick
        self._to_draw = [(run_id, name, d) for (run_id, name), d in result.drawn.items()]
        self._draw_slice(result)

    def _draw_slice(self, result: Prepared) -> None:
        """Hand the next ``CURVES_PER_TURN`` curves to pyqtgraph, the rest on the next turns of the event loop
        (400 curves at once held the window ~0.3 s); a newer request drops what is left."""
        if result.generation != self.loader.generation:
            return
        for run_id, name, d in self._to_draw[:CURVES_PER_TURN]:
            self._set_curve(run_id, name, d)
        del self._to_draw[:CURVES_PER_TURN]
        if self._to_draw:
            QTimer.singleShot(0, lambda: self._draw_slice(result))
            return
        self._drawn_ranges.update(self._pending_ranges)
        self.drawn_columns.update(self._pending_columns)
        self._set_loading(False)
        if self.logged_every() != self._shown_every:
            self._update_key()
        if result.drawn and self._unfitted:
            self.fit_view(self._unfitted)
        self.curves_drawn.emit()

    def _install(self, run_id: str, read: dict[str, Series], batch: int) -> None:
        """A run read from the store becomes the run's series; live rows that came meanwhile follow it."""
        live = self.series[run_id]
        for name, s in read.items():
            self._ensure_optional_plot(name)
            extra = live.get(name)
            if extra is not None and len(extra):
                last = s.last_step()
                newer = extra.steps > (last if last is not None else -np.inf)
                s.append(extra.steps[newer], extra.values[newer], extra.walls[newer])
        self.series[run_id] = {**live, **read}
        self.batch_sizes[run_id] = batch

    def _set_curve(self, run_id: str, name: str, d: Any) -> None:
        item = self.items.get((run_id, name))
        s = self.series.get(run_id, {}).get(name)
        if item is None or s is None:
            return
        if d.smoothed is not None and len(d.smoothed.values) <= len(s):
            s.smoothed = d.smoothed
        item.setData(d.x, d.y)
        if not item.property("symbols"):  # a single point is a dot, not an invisible line
            item.setSymbol("o" if len(d.x) == 1 else None)
            if len(d.x) == 1:
                item.setSymbolBrush(item.opts["pen"].color())
        faint = self.raw_items.get((run_id, name))
        if faint is not None:
            faint.setVisible(self.smoothing > 0)
            if d.raw_x is not None:
                faint.setData(d.raw_x, d.raw_y)
            else:
                faint.setData(d.x, d.y)

    def _failed(self, message: str) -> None:
        self._set_loading(False)
        self._unread = []
        self.load_failed.emit(message)

    # --- level of detail -------------------------------------------------------------------------
    def _columns(self, key: str) -> int:
        """Decimation columns for plot ``key``: its width in pixels (800 before it is laid out), at most
        ``MAX_COLUMNS``, fewer when many runs share the plot (``PLOT_POINTS`` across its curves)."""
        width = int(self.plots[key].getViewBox().width())
        metrics = ALL_PLOTS[key][2]
        per_run = len(metrics) + (sum(m[0] in SMOOTHED for m in metrics) if self.smoothing > 0 else 0)
        budget = PLOT_POINTS // (4 * max(1, per_run * len(self.order)))
        return max(MIN_COLUMNS, min(MAX_COLUMNS, width if width > 10 else 800, budget))

    def _decimation_range(self, key: str) -> tuple[float, float] | None:
        """The x range plot ``key`` shows when the user has zoomed or panned it (None: the whole curve)."""
        if key in self._unfitted:
            return None
        view = self.plots[key].getViewBox()
        if view.autoRangeEnabled()[0]:
            return None
        lo, hi = view.viewRange()[0]
        return (float(lo), float(hi))

    def _on_zoom(self) -> None:
        """The view settled after a zoom or pan: re-decimate the plots whose visible range left what was drawn."""
        moved = {key for key in self.plots if not _covers(self._drawn_ranges.get(key), self._decimation_range(key))}
        only = {(r, n) for r, m in self.series.items() for n in m if PLOT_OF.get(n) in moved}
        if only and not self.loading:
            self._request(only)
        elif only:
            self._zoom_timer.start()  # after the request under way

    def data_bounds(self, key: str) -> tuple[tuple[float, float], tuple[float, float]] | None:
        """The x and y range (in view coordinates: log10 on a log axis) of plot ``key``'s curves; None if empty."""
        plot = self.plots[key]
        xs, ys = [], []
        for item in plot.listDataItems():
            if item.xData is None or not len(item.xData) or not item.isVisible():
                continue
            x, y = np.asarray(item.xData, dtype=float), np.asarray(item.yData, dtype=float)
            if self.log_x:
                x = np.log10(np.where(x > 0, x, np.nan))
            if plot.getAxis("left").logMode:
                y = np.log10(np.where(y > 0, y, np.nan))
            keep = np.isfinite(x) & np.isfinite(y)
            xs.append(x[keep])
            ys.append(y[keep])
        x, y = (np.concatenate(xs), np.concatenate(ys)) if xs else (np.empty(0), np.empty(0))
        if not len(x):
            return None
        return (float(x.min()), float(x.max())), (float(y.min()), float(y.max()))

    def fit_view(self, keys: set[str] | None = None) -> None:
        """Fit each plot's range to its data in the current units, then let it follow new points.

        pyqtgraph's own auto-range is not enough after the x units change: its auto-downsampling is computed
        for the old range (0–45,000 samples seen), leaves no point of an epoch axis (0–10) to measure, and the
        range stays (issue 22). A single point gets a range of its own, not the previous run's span."""
        for key in list(keys if keys is not None else self.plots):
            bounds = self.data_bounds(key)
            if bounds is None:
                continue
            self._unfitted.discard(key)
            (x0, x1), (y0, y1) = bounds
            plot = self.plots[key]
            plot.setRange(xRange=_spread(x0, x1), yRange=_spread(y0, y1), padding=0.02)
            plot.enableAutoRange()

    def point_count(self, run_id: str, name: str) -> int:
        """Points of the curve on screen (after decimation)."""
        item = self.items.get((run_id, name))
        if item is None or item.xData is None:
            return 0
        return len(item.xData)

    def full_count(self, run_id: str, name: str) -> int:
        """Points of the curve at full resolution."""
        s = self.series.get(run_id, {}).get(name)
        return 0 if s is None else len(s)


def _widened(view: tuple[float, float]) -> tuple[float, float]:
    """A zoomed view's range and half its width each side (a pan within that needs no new decimation)."""
    lo, hi = view
    return lo - (hi - lo) / 2, hi + (hi - lo) / 2


def _covers(drawn: tuple[float, float] | None, view: tuple[float, float] | None) -> bool:
    """Whether the points decimated for view ``drawn`` still serve ``view``: both whole, or ``view`` within the
    widened range and zoomed by less than 1.5× either way."""
    if drawn is None or view is None:
        return drawn is None and view is None
    lo, hi = _widened(drawn)
    width, drawn_width = view[1] - view[0], drawn[1] - drawn[0]
    return lo <= view[0] and view[1] <= hi and drawn_width / 1.5 <= width <= drawn_width * 1.5
