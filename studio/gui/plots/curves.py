"""Live training curves: loss, accuracy, learning rate and throughput, and any other metric the runs logged.

A thin view over ``CurveModel`` (curve_model.py: the series, x axis, smoothing, colours, key and decimation
requests, without Qt) and its plots (curve_plots.py): it forwards the user's choices to the model and draws what
comes back. A selection's curves are read from the run store, smoothed and decimated (min/max per pixel column, at
the current zoom) on the curve loader's thread (``curve_loader.py``, ``curve_data.py``); the GUI thread only hands
finished arrays to pyqtgraph, and a newer request (selection, x axis, smoothing, log x, zoom) supersedes an older
one. Live data arrive in batches (``add_rows``) and a timer, running only while they come, redraws the curves that
changed at ~30 Hz (small work inline, big work on the loader); the live points of many runs (a sweep followed) at
a pace that keeps the GUI thread free (``live_pace.py``). Several runs overlay, one colour each (``colours()``: the
run list shows the same colour as its key); the key above the plots names the runs and the line styles, so no
legend covers the data. Before any run the plots give way to a hint. The Metrics menu chooses which logged metrics
are plotted (remembered by the window); the plots keep a readable height and scroll when the view is short; moving
the pointer over a plot reads every shown run's value at that x (``curve_hover.py``).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction, QActionGroup, QFont
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMenu,
    QScrollArea,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from studio.gui.plots.curve_data import Drawn, Prepared, Series, prepare
from studio.gui.plots.curve_groups import BAND_CHOICES
from studio.gui.plots.curve_hover import HoverReadout
from studio.gui.plots.curve_key import KEY_TIP, key_html
from studio.gui.plots.curve_loader import CurveLoader
from studio.gui.plots.curve_model import THICK_RUNS, X_AXES, CurveModel, Range, plot_of, plot_spec
from studio.gui.plots.curve_plots import RUNS_PER_TURN, STYLES, PlotGrid, fit
from studio.gui.plots.live_pace import LivePace
from studio.gui.session.theme import curve_colour
from studio.gui.widgets.forms import TidySpinBox

HINT = ("No run to show yet.\n\nPress Train (Ctrl+Return) to start one with the settings on the left,\n"
        "or select runs in the list below (Ctrl/Shift-click to overlay several).")
TICK_MS = 33  # the redraw timer's tick while live rows come (~30 Hz); it sleeps longer while the live pace waits
CURVES_PER_TURN = 60  # curves handed to pyqtgraph per event-loop turn (each setData ~0.5 ms)
ZOOM_SETTLE_MS = 120  # a zoom or pan re-decimates once the view has been still this long


MANY_RUNS = 50  # unknown runs from which every run's settings are read in one query instead of one query each


def read_params(store: Any, run_ids: list[str]) -> dict[str, dict]:
    """The settings of these runs from the store (none from a store that keeps none)."""
    everyone, params = getattr(store, "all_params", None), getattr(store, "params", None)
    if len(run_ids) > MANY_RUNS and callable(everyone):
        found = everyone()
        return {r: found.get(r, {}) for r in run_ids}
    return {r: params(r) for r in run_ids} if callable(params) else {}


class MetricMenu(QMenu):
    """The Metrics menu: ticking a metric keeps the menu open, to tick several."""

    def mouseReleaseEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        action = self.activeAction()
        if action is not None and action.isCheckable() and action.isEnabled():
            action.trigger()
            return
        super().mouseReleaseEvent(event)


class CurvesView(QWidget):
    """A grid of plots under a colour key; one colour per shown run.

    ``loading`` is true while the latest request (selection, x axis, smoothing, log x, zoom) is being prepared on
    the loader's thread; ``curves_drawn`` is emitted when its curves are on screen, ``load_failed`` says why not."""

    curves_drawn = Signal()
    load_failed = Signal(str)
    metrics_chosen = Signal(object)  # the user's metric choices (metric → plotted), to remember
    band_chosen = Signal(str)  # how a seed group is drawn (the Seeds setting), to remember; the runs' colours changed

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = CurveModel()
        self.presentation = False
        self.loader = CurveLoader(self)
        self.loader.done.connect(self._apply)
        self.loader.failed.connect(self._failed)
        self.loading = False
        self._store: Any = None  # where the runs still being read come from
        self._to_draw: list[tuple[str, str, Drawn]] = []  # prepared curves still to hand to pyqtgraph
        # the x axes change with the curves they show (at once, each was a paint of the old curves, ~40 ms at 50 runs)
        self._relabel = False
        self._relog = False
        self._fresh = False  # rows came since the last tick looked (an idle tick then costs nothing)
        self._zoom_timer = QTimer(self)
        self._zoom_timer.setSingleShot(True)
        self._zoom_timer.setInterval(ZOOM_SETTLE_MS)
        self._zoom_timer.timeout.connect(self._on_zoom)
        self.grid = PlotGrid(self.model, self, self._zoom_timer.start)
        self.pace = LivePace()  # live points of a sweep drawn at a pace that keeps the GUI thread free
        self.grid.graphics.painted = self.pace.painted
        self.graphics, self.plots = self.grid.graphics, self.grid.plots
        self.items, self.raw_items = self.grid.items, self.grid.raw_items
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.controls_bar = self._controls()
        layout.addLayout(self.controls_bar)
        self.key = QLabel("")
        self.key.setObjectName("curve_key")
        self.key.setWordWrap(True)
        self.key.setTextFormat(Qt.TextFormat.RichText)
        self.key.setToolTip(KEY_TIP)
        layout.addWidget(self.key)
        self.hint = QLabel(HINT)
        self.hint.setObjectName("curves_hint")
        self.hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.hint.setWordWrap(True)
        self.plot_scroll = QScrollArea()  # the plots keep their least height (Style.min_height): a short view scrolls
        self.plot_scroll.setObjectName("curves_scroll")
        self.plot_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.plot_scroll.setWidgetResizable(True)
        self.plot_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.plot_scroll.setWidget(self.graphics)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.hint)
        self.stack.addWidget(self.plot_scroll)
        layout.addWidget(self.stack, 1)
        self.readout = HoverReadout(self)
        self._update_key()
        self.timer = QTimer(self)  # ticks only while live rows come: an idle view asks nothing of the event loop
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self.redraw)
        self.ticking = True  # False: drawn when asked (a recording's frames), never on a timer

    def _controls(self) -> QHBoxLayout:
        """The bar above the key: x axis, log x, smoothing and the loading hint."""
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
        self.band_button = QToolButton()  # a menu, as Metrics: a combo box here pushed the window past 1024 px
        self.band_button.setObjectName("seed_band")
        self.band_button.setText("Seeds")
        self.band_button.setToolTip("Runs that differ only in the seed (a seed group): drawn as their mean with a "
                                    "band of ± 1 standard deviation or the 95 % interval of the mean (each run "
                                    "smoothed first), or as a line per run")
        self.band_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        band_menu = QMenu(self.band_button)
        choices = QActionGroup(band_menu)
        self.band_actions: dict[str, QAction] = {}
        for key, text in BAND_CHOICES.items():
            action = band_menu.addAction(text)
            action.setCheckable(True)
            action.setChecked(key == self.model.band_kind)
            choices.addAction(action)
            action.triggered.connect(lambda _=False, k=key: self.set_band(k))
            self.band_actions[key] = action
        self.band_button.setMenu(band_menu)
        bar.addWidget(self.band_button)
        bar.addSpacing(12)
        self.metrics_button = QToolButton()
        self.metrics_button.setObjectName("curve_metrics")
        self.metrics_button.setText("Metrics")
        self.metrics_button.setToolTip("Which logged metrics are plotted: every metric the shown runs logged is "
                                       "listed; one without a plot of its own gets one (remembered)")
        self.metrics_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.metrics_menu = MetricMenu(self.metrics_button)
        self.metrics_menu.aboutToShow.connect(self._fill_metrics_menu)
        self.metrics_button.setMenu(self.metrics_menu)
        bar.addWidget(self.metrics_button)
        bar.addSpacing(12)
        self.loading_hint = QLabel("Loading curves…")
        self.loading_hint.setObjectName("curves_loading")
        self.loading_hint.setToolTip("Reading, smoothing and thinning the selected runs' curves; the window stays "
                                     "usable meanwhile")
        self.loading_hint.setVisible(False)
        bar.addWidget(self.loading_hint)
        bar.addStretch(1)
        return bar

    @property
    def series(self) -> dict[str, dict[str, Series]]:
        """The model's series (run → metric), as the window's tests read them."""
        return self.model.series

    @property
    def x_mode(self) -> str:
        return self.model.x_mode

    # --- what is shown ---------------------------------------------------------------------------
    def clear(self) -> None:
        """Show nothing: no curve, no optional plot (a text run's Perplexity goes with it), no range kept."""
        self.model.clear()
        self.readout.hide()
        self.grid.reset()
        self._update_key()

    def show_runs(self, data: dict[str, dict[str, tuple]], labels: dict[str, str] | None = None,
                  batch_sizes: dict[str, int] | None = None, params: dict[str, dict] | None = None) -> None:
        """Replace what is shown with these runs' metrics (``run_id → name → (steps, values[, walls])``); with
        their settings (``params``) runs that differ only in the seed are drawn as a band."""
        self.model.set_params(params or {})
        self.model.show(data, labels, batch_sizes)
        self.readout.hide()
        self.grid.reset()
        self._update_key()
        self._refresh()

    def load_runs(self, store: Any, run_ids: list[str], labels: dict[str, str] | None = None) -> None:
        """Show these runs from the run store: the key at once, the curves once the loader has read and prepared
        them (``curves_drawn``). Runs shown already keep their arrays (and their live points); runs that differ
        only in the seed are drawn as their mean and a band (the Seeds setting)."""
        self.model.set_params(read_params(store, [r for r in run_ids if r not in self.model.params]))
        self.model.select(run_ids, labels)
        self._store = store
        self.readout.hide()
        self.grid.reset(defer_after=RUNS_PER_TURN)
        self._update_key()
        self._refresh()

    def add_run(self, run_id: str, label: str) -> None:
        """Show run ``run_id``; its points come with ``add_rows``."""
        if not self.model.add_run(run_id, label):
            return
        self.grid.make(run_id)
        if len(self.model.order) == THICK_RUNS + 1:
            self.grid.restyle_lines()  # every line thinner
        self._update_key()

    def add_rows(self, run_id: str, rows: list) -> None:
        """Append live rows ``(step, name, value, wall)``; drawn at the next timer tick. Rows of a run still being
        read wait here and follow what the store had."""
        plots = list(self.model.plots)
        self._fresh = True
        if self.ticking and not self.timer.isActive():
            self.timer.start()
        self.model.add_rows(run_id, rows)
        if list(self.model.plots) != plots:  # a metric of a plot not shown yet (each call: 5 ms/s at 50 live runs)
            self.grid.sync()

    def set_labels(self, labels: dict[str, str]) -> None:
        """New names for shown runs (renamed in the run list)."""
        self.model.set_labels(labels)
        self._update_key()

    def colours(self) -> dict[str, str]:
        """Each shown run's curve colour (the run list draws it as the run's swatch)."""
        return {run_id: curve_colour(c) for run_id, c in self.model.colours().items()}

    def wait_drawn(self, timeout_s: float = 60.0) -> bool:
        """Process events until the latest request is on screen (headless renders); False on timeout."""
        import time

        from PySide6.QtWidgets import QApplication

        deadline = time.monotonic() + timeout_s
        while self.loading and time.monotonic() < deadline:
            QApplication.processEvents()
            time.sleep(0.005)
        return not self.loading

    def point_count(self, run_id: str, name: str) -> int:
        """Points of the curve on screen (after decimation)."""
        return self.grid.point_count(run_id, name)

    # --- the user's choices ----------------------------------------------------------------------
    def set_smoothing(self, weight: float) -> None:
        self.model.set_smoothing(weight)
        self._refresh(fit=False)

    def set_band(self, kind: str) -> None:
        """How a seed group is drawn: ``"std"``, ``"ci95"`` or ``"runs"`` (a line per run)."""
        self.model.set_band(kind)
        self.band_actions[kind].setChecked(True)
        self.grid.reset()  # the runs' colours and the key change with the grouping
        self._update_key()
        self._refresh(fit=False)
        self.band_chosen.emit(kind)

    def set_x_mode(self, mode: str) -> None:
        """``"step"``, ``"epoch"``, ``"samples"`` (step × batch size) or ``"wall"`` (seconds since the run's
        first metric)."""
        self.model.set_x_mode(mode)
        if self.x_box.currentData() != mode:
            blocked = self.x_box.blockSignals(True)  # its signal would call this again
            self.x_box.setCurrentIndex(list(X_AXES).index(mode))
            self.x_box.blockSignals(blocked)
        self._relabel = True  # named with the new curves: now, it would paint the old ones under the new name
        self._refresh()

    def set_log_x(self, on: bool) -> None:
        self.model.set_log_x(on)
        if self.log_x_box.isChecked() != self.model.log_x:
            blocked = self.log_x_box.blockSignals(True)
            self.log_x_box.setChecked(self.model.log_x)
            self.log_x_box.blockSignals(blocked)
        self._relog = True  # with the new curves, as the x axis's name
        self._refresh()

    def set_presentation(self, on: bool) -> None:
        """Projector style: larger titles, axis labels, ticks and key; thicker lines and bigger symbols."""
        self.presentation = bool(on)
        self.grid.set_style(STYLES[self.presentation])
        self._update_key()

    def _update_key(self) -> None:
        """The line above the plots: a colour swatch and name per run, and what solid and dashed mean."""
        self.stack.setCurrentWidget(self.plot_scroll if self.model.order else self.hint)
        size = STYLES[self.presentation].key
        font = QFont(self.key.font())
        font.setPointSize(size)
        self.key.setFont(font)
        text, tip = key_html(self.model.key(), self.colours(), size)
        self.key.setToolTip(tip)
        self.key.setText(text)
        self.key.setVisible(bool(text))

    def restyle_key(self) -> None:
        """Colours follow the theme (the black run is drawn light on a dark background)."""
        self._update_key()

    # --- which metrics are plotted -----------------------------------------------------------------
    def logged_metrics(self) -> list[str]:
        """Every metric the shown runs logged (what the Metrics menu lists)."""
        return self.model.logged()

    def set_metric_shown(self, metric: str, on: bool) -> None:
        """Plot ``metric`` or not (the Metrics menu); ``metrics_chosen`` tells the window to remember it."""
        if self.model.set_chosen(metric, on):
            self._replot()
            self.metrics_chosen.emit(dict(self.model.choices))

    def set_metric_choices(self, choices: dict[str, bool]) -> None:
        """The remembered choices (metric → plotted), e.g. from the window's settings."""
        self.model.set_choices(choices)
        self._replot()

    def reset_metric_choices(self) -> None:
        """Back to the default: Studio's plots, not the other metrics."""
        self.set_metric_choices({})
        self.metrics_chosen.emit({})

    def _replot(self) -> None:
        """Plots and lines again for the model's choice, every curve prepared again."""
        self.readout.hide()
        self.grid.reset()
        self._update_key()
        self._refresh(fit=False)

    def _fill_metrics_menu(self) -> None:
        self.metrics_menu.clear()
        logged = self.model.logged()
        if not logged:
            self.metrics_menu.addAction("Select a run: its metrics are listed here").setEnabled(False)
        for metric in logged:
            action = self.metrics_menu.addAction(metric)
            action.setCheckable(True)
            action.setChecked(self.model.chosen(metric))
            action.setToolTip(f"In the plot “{plot_spec(plot_of(metric))[0]}”")
            action.toggled.connect(lambda on, m=metric: self.set_metric_shown(m, on))
        self.metrics_menu.addSeparator()
        self.metrics_menu.addAction("Studio's plots only", self.reset_metric_choices)

    # --- drawing ---------------------------------------------------------------------------------
    def redraw(self) -> None:
        """Draw the series that changed (the timer's tick): live points, a run's epochs. While a request is being
        prepared nothing is started: its result (and the next tick) cover it."""
        if self.loading:
            return
        runs = len(self.model.order)
        if not self._fresh:
            self.timer.stop()  # nothing new: the next add_rows starts it again
            return
        if not self.pace.due(runs):  # what is new is drawn when the pace allows: the timer sleeps until then
            self.timer.start(max(TICK_MS, int(self.pace.wait_s(runs) * 1000) + 1))
            return
        self.timer.setInterval(TICK_MS)
        self._fresh = False
        dirty = self.model.dirty()
        if not dirty:
            return
        self.pace.started(runs)
        if self.model.key_outdated():
            self._update_key()  # the first points of a run tell how often it logs
        self._request(dirty)

    def _refresh(self, fit: bool = True) -> None:
        """Prepare every shown curve again (a new selection, x axis, log x, smoothing); ``fit``: fit the ranges."""
        if fit:
            self.model.refit()
        self.model.mark_dirty()
        self._request(None)

    def _request(self, only: set[tuple[str, str]] | None) -> None:
        """Prepare the series ``only`` (None: all), inline when small and nothing is to be read, else on the
        loader's thread; a newer request supersedes this one."""
        job = self.model.request(self.loader.next_generation(), only, self.grid.views())
        if self.model.inline(only):
            self.grid.flush()
            self._apply(prepare(job))
            return
        self._set_loading(True)
        self.loader.submit(job, self._store, list(self.model.unread))

    def _set_loading(self, on: bool) -> None:
        self.loading = on
        self.loading_hint.setVisible(on)

    def _apply(self, result: Prepared) -> None:
        """Hand a prepared request's arrays to pyqtgraph (a superseded one is dropped)."""
        if result.generation != self.loader.generation:
            return
        self.grid.flush()
        for run_id in result.loaded:
            got = self.loader.take(run_id)
            if got is not None:
                self.model.install(run_id, *got)
        self.grid.sync()
        self._to_draw = self.model.settle(result)
        if len(self._to_draw) > CURVES_PER_TURN:  # painted once, at the end, not once per turn and again after
            self.grid.graphics.setUpdatesEnabled(False)  # the fit: each paint replays every axis and fits every
            # plot's range again (issue 40: ~60 ms a paint with 50 runs; the window's other widgets still paint)
        self._draw_slice(result)

    def _draw_slice(self, result: Prepared) -> None:
        """Hand the next ``CURVES_PER_TURN`` curves to pyqtgraph, the rest on the next turns of the event loop
        (400 curves at once held the window ~0.3 s); a newer request drops what is left."""
        if result.generation != self.loader.generation:
            return
        for run_id, name, d in self._to_draw[:CURVES_PER_TURN]:
            self.grid.draw(run_id, name, d)
        del self._to_draw[:CURVES_PER_TURN]
        if self._to_draw:
            QTimer.singleShot(0, lambda: self._draw_slice(result))
            return
        self.model.drawn()
        self.grid.draw_bands()
        self._settle_x_axes()
        self._set_loading(False)
        if self.model.key_outdated():
            self._update_key()
        if result.drawn and self.model.unfitted:
            self.fit_view(set(self.model.unfitted))
        self.grid.graphics.setUpdatesEnabled(True)  # the one paint: new lines in their fitted ranges
        self.curves_drawn.emit()

    def _settle_x_axes(self) -> None:
        """The x axes' name and log mode as the new curves need them (before the paint that shows them)."""
        if self._relabel:
            self._relabel = False
            self.grid.label_x()
        if self._relog:
            self._relog = False
            self.grid.log_x()

    def _failed(self, message: str) -> None:
        self._settle_x_axes()
        self.grid.graphics.setUpdatesEnabled(True)
        self._set_loading(False)
        self.model.failed()
        self.load_failed.emit(message)

    # --- ranges ----------------------------------------------------------------------------------
    def _on_zoom(self) -> None:
        """The view settled after a zoom or pan: re-decimate the plots whose visible range left what was drawn."""
        only = self.model.series_in(self.model.moved(self.grid.views()))
        if only and not self.loading:
            self._request(only)
        elif only:
            self._zoom_timer.start()  # after the request under way

    def data_bounds(self, key: str) -> tuple[Range, Range] | None:
        """The x and y range (in view coordinates: log10 on a log axis) of plot ``key``'s curves; None if empty."""
        return self.grid.bounds(key)

    def fit_view(self, keys: set[str] | None = None) -> None:
        """Fit each plot's range to its data in the current units, then let it follow new points.

        pyqtgraph's own auto-range is not enough after the x units change: its auto-downsampling is computed
        for the old range (0–45,000 samples seen), leaves no point of an epoch axis (0–10) to measure, and the
        range stays (issue 22). A single point gets a range of its own, not the previous run's span."""
        for key in list(keys if keys is not None else self.plots):
            found = self.grid.bounds(key)
            if found is not None:
                self.model.unfitted.discard(key)
                fit(self.plots[key], *found)
