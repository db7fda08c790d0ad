"""Live training curves: loss, accuracy, learning rate and throughput against the step.

Data arrive in batches (``add_rows``) and are only appended to arrays; a timer redraws the
curves that changed at ~30 Hz. Several runs overlay, one colour each; pyqtgraph downsamples and
clips to the view. An EMA smoothing (TensorBoard's, with debiasing) applies to the per-step train
curves.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QDoubleSpinBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from studio.gui.plots.palette import run_colour
from studio.gui.theme import curve_colour

# plot title, then (metric name, legend label, dashed?, per-epoch symbols?)
PLOTS = {
    "loss": ("Loss", [("train/loss", "train", False, False), ("val/loss", "validation", True, True)]),
    "acc": ("Accuracy", [("train/acc", "train", False, False), ("val/acc", "validation", True, True)]),
    "lr": ("Learning rate", [("lr", "lr", False, False)]),
    "throughput": ("Throughput (samples/s)", [("throughput", "samples/s", False, False)]),
}
# Plots that appear only once a shown run has their metric: the sharpness curve is logged when
# train.sharpness_every > 0 (engine/landscape_callbacks.py).
OPTIONAL_PLOTS = {
    "sharpness": ("Sharpness (top Hessian eigenvalue)", [("sharpness/top_eig", "λmax", False, True)]),
}
SMOOTHED = {"train/loss", "train/acc"}
# Normal and presentation (projector) styles: line width, symbol size, title/axis/tick/legend font sizes.
STYLES = {False: (2, 6, "11pt", "9pt", 9, "9pt"), True: (4, 11, "20pt", "16pt", 15, "12pt")}


def ema(values: np.ndarray, weight: float) -> np.ndarray:
    """TensorBoard's smoothing: an exponential moving average, debiased at the start."""
    if weight <= 0 or len(values) == 0:
        return values
    out = np.empty_like(values, dtype=float)
    acc, norm = 0.0, 0.0
    for i, v in enumerate(values):
        acc = acc * weight + (1 - weight) * v
        norm = norm * weight + (1 - weight)
        out[i] = acc / norm
    return out


@dataclass
class Series:
    steps: list[float] = field(default_factory=list)
    values: list[float] = field(default_factory=list)
    dirty: bool = True


class CurvesView(QWidget):
    """A grid of plots; one colour per shown run."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.series: dict[str, dict[str, Series]] = {}  # run_id → metric → series
        self.items: dict[tuple[str, str], pg.PlotDataItem] = {}
        self.order: list[str] = []
        self.labels: dict[str, str] = {}
        self.smoothing = 0.0
        self.presentation = False
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        bar = QHBoxLayout()
        bar.addWidget(QLabel("Smoothing"))
        self.smooth_box = QDoubleSpinBox()
        self.smooth_box.setRange(0.0, 0.99)
        self.smooth_box.setSingleStep(0.1)
        self.smooth_box.setToolTip("Exponential moving average of the per-step curves, debiased (as in TensorBoard)")
        self.smooth_box.valueChanged.connect(self.set_smoothing)
        bar.addWidget(self.smooth_box)
        bar.addStretch(1)
        layout.addLayout(bar)
        self.graphics = pg.GraphicsLayoutWidget()
        layout.addWidget(self.graphics, 1)
        self.plots: dict[str, pg.PlotItem] = {}
        for i, (key, (title, _)) in enumerate(PLOTS.items()):
            self._add_plot(key, title, row=i // 2, col=i % 2)
        self.timer = QTimer(self)
        self.timer.setInterval(33)
        self.timer.timeout.connect(self.redraw)
        self.timer.start()

    def _add_plot(self, key: str, title: str, row: int, col: int, colspan: int = 1) -> pg.PlotItem:
        plot = self.graphics.addPlot(row=row, col=col, colspan=colspan, title=title)
        plot.showGrid(x=True, y=True, alpha=0.25)
        plot.setLabel("bottom", "step")
        plot.setClipToView(True)
        plot.setDownsampling(auto=True, mode="peak")
        # a translucent legend: the curves under it stay visible when several runs overlay
        plot.addLegend(offset=(-10, 10), brush=pg.mkBrush(128, 128, 128, 40))
        if key == "lr":
            plot.setLogMode(y=True)  # rates span decades (warm-up, decay)
        self.plots[key] = plot
        if self.presentation:
            self._style_plot(key, plot)
        return plot

    def _ensure_optional_plot(self, metric: str) -> None:
        """Add an optional plot (and its curves for every shown run) the first time its metric arrives."""
        for key, (title, metrics) in OPTIONAL_PLOTS.items():
            if key in self.plots or metric not in {m[0] for m in metrics}:
                continue
            self._add_plot(key, title, row=(len(PLOTS) + 1) // 2, col=0, colspan=2)
            for index, run_id in enumerate(self.order):
                self._add_items(run_id, self.labels.get(run_id, run_id), index, {key: (title, metrics)})

    # --- data --------------------------------------------------------------------------------
    def clear(self) -> None:
        for plot in self.plots.values():
            plot.clear()
            if plot.legend is not None:
                plot.legend.clear()
        self.series.clear()
        self.items.clear()
        self.order.clear()
        self.labels.clear()

    def show_runs(self, data: dict[str, dict[str, tuple[list, list]]], labels: dict[str, str] | None = None) -> None:
        """Replace what is shown with these runs' metrics (``run_id → name → (steps, values)``)."""
        self.clear()
        for run_id, metrics in data.items():
            self.add_run(run_id, (labels or {}).get(run_id, run_id))
            for name, (steps, values) in metrics.items():
                self._ensure_optional_plot(name)
                s = self.series[run_id].setdefault(name, Series())
                s.steps.extend(steps)
                s.values.extend(values)
        self.redraw()

    def add_run(self, run_id: str, label: str) -> None:
        if run_id in self.series:
            return
        self.series[run_id] = {}
        self.order.append(run_id)
        self.labels[run_id] = label
        plots = {k: v for k, v in {**PLOTS, **OPTIONAL_PLOTS}.items() if k in self.plots}
        self._add_items(run_id, label, len(self.order) - 1, plots)

    def _add_items(self, run_id: str, label: str, index: int, plots: dict) -> None:
        colour = curve_colour(run_colour(index))
        width, symbol_size = STYLES[self.presentation][:2]
        for key, (_, metrics) in plots.items():
            for name, legend, dashed, symbols in metrics:
                pen = pg.mkPen(colour, width=width, style=Qt.PenStyle.DashLine if dashed else Qt.PenStyle.SolidLine)
                kwargs = ({"symbol": "o", "symbolSize": symbol_size, "symbolBrush": colour, "symbolPen": colour}
                          if symbols else {})
                item = self.plots[key].plot([], [], pen=pen, name=f"{label} · {legend}", **kwargs)
                self.items[(run_id, name)] = item

    def add_rows(self, run_id: str, rows: list) -> None:
        """Append live rows ``(step, name, value, wall)``; drawn at the next timer tick."""
        if run_id not in self.series:
            return
        metrics = self.series[run_id]
        for step, name, value, _wall in rows:
            if name not in metrics:
                self._ensure_optional_plot(name)
            s = metrics.setdefault(name, Series())
            if s.steps and step <= s.steps[-1]:
                continue  # already loaded from the run store when the run was selected
            s.steps.append(step)
            s.values.append(value)
            s.dirty = True

    def set_smoothing(self, weight: float) -> None:
        self.smoothing = weight
        for metrics in self.series.values():
            for s in metrics.values():
                s.dirty = True

    def set_presentation(self, on: bool) -> None:
        """Projector style: larger titles, axis labels, ticks and legends; thicker lines and bigger symbols."""
        self.presentation = bool(on)
        width, symbol_size = STYLES[self.presentation][:2]
        for key, plot in self.plots.items():
            self._style_plot(key, plot)
        for item in self.items.values():
            pen = pg.mkPen(item.opts["pen"])
            pen.setWidthF(width)
            item.setPen(pen)
            if item.opts.get("symbol"):
                item.setSymbolSize(symbol_size)

    def _style_plot(self, key: str, plot: pg.PlotItem) -> None:
        title, label, tick, legend = STYLES[self.presentation][2:]
        plot.setTitle({**PLOTS, **OPTIONAL_PLOTS}[key][0], size=title)
        for name in ("bottom", "left"):
            axis = plot.getAxis(name)
            axis.labelStyle["font-size"] = label
            axis.setLabel(axis.labelText, **axis.labelStyle)
            font = QFont()
            font.setPointSize(tick)
            axis.setTickFont(font)
        if plot.legend is not None:
            plot.legend.setLabelTextSize(legend)
            for _sample, text in plot.legend.items:  # setLabelTextSize only records the size: redraw
                text.setText(text.text)

    # --- drawing -----------------------------------------------------------------------------
    def redraw(self) -> None:
        for run_id, metrics in self.series.items():
            for name, s in metrics.items():
                item = self.items.get((run_id, name))
                if item is None or not s.dirty:
                    continue
                values = np.asarray(s.values, dtype=float)
                if name in SMOOTHED:
                    values = ema(values, self.smoothing)
                item.setData(np.asarray(s.steps, dtype=float), values)
                s.dirty = False

    def point_count(self, run_id: str, name: str) -> int:
        item = self.items.get((run_id, name))
        if item is None or item.xData is None:
            return 0
        return len(item.xData)
