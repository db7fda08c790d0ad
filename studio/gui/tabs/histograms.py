"""The Histograms tab: a run's weight and gradient histograms per layer over training (TensorBoard's
distributions), read from the run folder (``core/runs/histograms.py``), also while the run trains.

Pick a run and a layer (a parameter tensor); two heat maps show, for each recorded step (x), the share of the
tensor's values in each value bin (y): weights above, gradients below. No torch is imported here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from studio.core.contracts import layout
from studio.core.runs import histograms
from studio.gui.plots.axes import IntegerAxis, plain_numbers
from studio.gui.widgets.run_picker import RunBox, RunPicker

VALUE_BINS = 60  # rows of the heat map (the common value axis)
POLL_MS = 2000  # re-read a running run's file this often
COLOURS = "viridis"
HINT = ("No histograms to show.\n\nRuns record weight and gradient histograms of every layer every "
        "train.histogram_every steps (Training settings; default 100, 0: off).\nTrain a run, or pick one "
        "that recorded them, to see how each layer's values spread over training.")


def caption(records: list[histograms.HistogramRecord], layer: str) -> str:
    """What the heat maps of ``layer`` show, with the newest step's ranges: each kind's from its own record."""
    shape = histograms.shapes(records).get(layer)
    named = f"{layer} ({'×'.join(map(str, shape))})" if shape else layer
    last = {r["kind"]: r for r in records if r["name"] == layer}  # the newest record of each kind
    spans = [f"{words} span {last[kind]['min']:.3g} to {last[kind]['max']:.3g} at step {last[kind]['step']}"
             for kind, words in (("weight", "weights"), ("grad", "gradients")) if kind in last]
    num = next(iter(last.values()))["num"] if last else 0
    return (f"{named}: {num:,} values, {histograms.BINS} bins between each step's min and max; "
            f"{'; '.join(spans)}. Colour: share of the values in a bin.")


def recorded(steps: list[int]) -> str:
    """When a tensor's histograms were recorded: "once, at step 0", or "at 12 steps, from 0 to 1,100"."""
    if len(steps) == 1:
        return f"once, at step {steps[0]:,}"
    return f"at {len(steps):,} steps, from {steps[0]:,} to {steps[-1]:,}"


class HistogramView(QWidget):
    """One kind (weights or gradients) of one tensor: a step × value heat map with a colour bar."""

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = title
        self.plot = pg.PlotWidget(axisItems={"bottom": IntegerAxis("bottom")})  # steps: whole numbers
        self.plot.setMenuEnabled(False)
        self.plot.hideButtons()
        self.plot.setLabel("bottom", "step")
        self.plot.setLabel("left", "value")
        plain_numbers(self.plot.getAxis("left"))  # 0.3, not 300 (×0.001)
        self.image = pg.ImageItem(axisOrder="row-major")
        self.plot.addItem(self.image)
        self.colorbar = pg.ColorBarItem(colorMap=pg.colormap.get(COLOURS), interactive=False, width=12,
                                        label="share of values")
        self.colorbar.setImageItem(self.image, insert_in=self.plot.getPlotItem())
        self.shown: np.ndarray = np.zeros((0, 0))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.plot)

    def draw(self, s: histograms.HistogramSeries | None, layer: str) -> None:
        """Show ``s`` (None: the kind was not recorded, e.g. a frozen layer has no gradients)."""
        if s is None or not s.steps:
            self.image.clear()
            self.shown = np.zeros((0, 0))
            self.plot.setTitle(f"{self.title} of {layer}: none recorded")
            return
        dens, low, high = s.density(VALUE_BINS)
        self.shown = dens.T  # rows: value bins (low first), columns: steps
        steps = np.asarray(s.steps, float)
        width = max(1.0, float(np.median(np.diff(steps)))) if len(steps) > 1 else 1.0  # a column per record
        top = float(dens.max()) or 1.0
        self.image.setImage(self.shown, autoLevels=False)
        self.colorbar.setLevels((0.0, top))
        x0 = steps[0] - width / 2
        self.image.setRect(x0, low, steps[-1] - steps[0] + width, high - low)
        self.plot.setXRange(x0, steps[-1] + width / 2, padding=0)
        self.plot.setYRange(low, high, padding=0.02)
        self.plot.setTitle(f"{self.title} of {layer} · recorded {recorded(s.steps)}")


class HistogramsTab(QWidget, RunPicker):
    """Runs with histograms, their layers, and the weights/gradients heat maps of the chosen layer."""

    uses_settings_panel = False  # it reads stored runs: the heat maps get the width
    absent_reason = "no histograms recorded (train.histogram_every was 0)"

    def __init__(self, session: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.records: list[histograms.HistogramRecord] = []
        self._offset = 0  # bytes of the run's file read so far
        self.run_box = RunBox("The run whose histograms to show (runs that recorded some, and running ones)")
        self.run_box.setMinimumContentsLength(28)
        self.run_box.currentIndexChanged.connect(self._run_changed)
        self.layer_box = QComboBox()
        self.layer_box.setToolTip("The layer's parameter tensor (weight or bias) to show")
        self.layer_box.setMinimumContentsLength(20)
        self.layer_box.currentIndexChanged.connect(self.redraw)
        bar = QHBoxLayout()
        bar.addWidget(QLabel("Run"))
        bar.addWidget(self.run_box, 2)
        bar.addWidget(QLabel("Layer"))
        bar.addWidget(self.layer_box, 1)
        self.info = QLabel()
        self.info.setWordWrap(True)
        self.weights = HistogramView("weights")
        self.grads = HistogramView("gradients")
        views = QWidget()
        views_layout = QVBoxLayout(views)
        views_layout.setContentsMargins(0, 0, 0, 0)
        views_layout.addWidget(self.weights, 1)
        views_layout.addWidget(self.grads, 1)
        self.hint = QLabel(HINT)
        self.hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.hint.setWordWrap(True)
        self.pages = QStackedWidget()
        self.pages.addWidget(self.hint)
        self.pages.addWidget(views)
        main = QVBoxLayout(self)
        main.addLayout(bar)
        main.addWidget(self.info)
        main.addWidget(self.pages, 1)
        self.timer = QTimer(self)
        self.timer.setInterval(POLL_MS)
        self.timer.timeout.connect(self._poll)
        session.runs_changed.connect(self.refresh_runs)
        session.run_ended.connect(self._run_ended)
        self.connect_picker()
        self.refresh_runs()
        self._follow_selection(session.selected_runs())

    @property
    def busy(self) -> bool:
        return False  # reading a file is quick: always follow the run list's selection

    # --- runs and layers ---------------------------------------------------------------------
    def _run_ended(self, _run_id: str, _status: str, _message: str) -> None:
        self.refresh_runs()  # a bound method: disconnected when the tab is deleted

    def refresh_runs(self) -> None:
        """Reload the runs that have histograms (or are running), keeping the current choice."""
        self.fill_runs([run for run in self.session.store.list()
                        if layout.histograms_path(run.dir).is_file() or run.id in self.session.jobs])
        self._run_changed()

    def _run_changed(self) -> None:
        self.records, self._offset = [], 0
        self._load()
        run_id = self.run_box.currentData()
        if run_id and run_id in self.session.jobs:
            self.timer.start()
        else:
            self.timer.stop()

    def _file(self) -> Path | None:
        """The chosen run's histogram file (None: no run chosen)."""
        run_dir = self.run_dir()
        return layout.histograms_path(run_dir) if run_dir else None

    def _poll(self) -> None:
        """While the run trains: read what was appended to its file."""
        path = self._file()
        if path is not None and path.is_file() and path.stat().st_size > self._offset:
            self._load()
        if self.run_box.currentData() not in self.session.jobs:
            self.timer.stop()

    def _load(self) -> None:
        """Read the chosen run's new records (all of them after a change of run) and redraw."""
        run_dir = self.run_dir()
        if run_dir is None:
            self.records, self._offset = [], 0
        else:
            new, self._offset = histograms.read_from(run_dir, self._offset)
            self.records += new
        layer = self.layer_box.currentText()
        self.layer_box.blockSignals(True)
        self.layer_box.clear()
        self.layer_box.addItems(histograms.layers(self.records))
        if layer and self.layer_box.findText(layer) >= 0:
            self.layer_box.setCurrentText(layer)
        self.layer_box.blockSignals(False)
        self.redraw()

    def redraw(self) -> None:
        """Draw the chosen layer's weights and gradients, or the hint when there is nothing to draw."""
        layer = self.layer_box.currentText()
        if not self.records or not layer:
            self.pages.setCurrentWidget(self.hint)
            self.info.setText("")
            return
        by = histograms.series([r for r in self.records if r["name"] == layer])
        weights, grads = by.get((layer, "weight")), by.get((layer, "grad"))
        self.weights.draw(weights, layer)
        self.grads.draw(grads, layer)
        self.pages.setCurrentIndex(1)
        self.info.setText(caption(self.records, layer))
