"""The Scaling-laws tab: fit L(x) = a·x^(−b) + c to the selected runs' loss against steps, samples seen or
parameter count, and draw the data, the fit, its extrapolation and a 95 % band on log–log axes.

The fit (``engine/tasks/fit_runs.py``) runs in a background job the Session follows (``gui/app/job_binding``):
counting parameters needs torch, which the GUI never imports.
"""

from __future__ import annotations

import math
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from studio.core.contracts.scaling import FitRequest
from studio.core.maths.scaling_fit import AGAINST
from studio.core.vocab import Metric
from studio.gui.app.job_binding import JobBinding
from studio.gui.plots.palette import run_colour

HINT = ("Select one or more runs in the Training tab's run list. Against steps or samples each run gets its own "
        "fit; against parameters, select 4 or more runs of different model widths.")
METRICS = (Metric.VAL_LOSS.value, Metric.TRAIN_LOSS.value)


def _log10(values: list[float]) -> list[float]:
    return [math.log10(v) if v > 0 else float("nan") for v in values]


class ScalingLawsTab(QWidget):
    # it works on stored runs, not on the next run's settings: the window gives it the settings panel's width
    # (at 1024 px its plots were cramped beside the panel; issue 22)
    uses_settings_panel = False

    def __init__(self, session: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.result: dict[str, Any] | None = None
        self.error: str | None = None
        self.job = JobBinding(self)
        self.job.done.connect(self._on_done)
        self.job.failed.connect(self._on_failed)
        self.job.cancelled.connect(lambda: self._on_failed("cancelled"))

        self.against = QComboBox()
        self.against.setObjectName("fit_against")
        self.against.addItems(AGAINST)
        self.against.setToolTip("x: optimizer steps, samples seen (steps × batch), or the model's parameter count")
        self.loss_box = QComboBox()
        self.loss_box.setObjectName("fit_metric")
        self.loss_box.setEditable(True)
        self.loss_box.addItems(METRICS)
        edit = self.loss_box.lineEdit()  # an editable combo box has one
        if edit is not None:
            edit.setToolTip("The metric's name as the run logged it, e.g. val/loss")
        self.loss_box.setToolTip("The loss to fit: validation loss (a point per epoch) or training loss (more points)")
        self.extrapolate = QDoubleSpinBox()
        self.extrapolate.setRange(1.0, 1000.0)
        self.extrapolate.setValue(4.0)
        self.extrapolate.setPrefix("predict at ")
        self.extrapolate.setSuffix(" × x")
        self.extrapolate.setToolTip("Predict the loss at this multiple of the largest x (steps, samples or parameters)")
        self.fit_button = QPushButton("Fit")
        self.fit_button.setObjectName("fit_button")
        self.fit_button.clicked.connect(self.fit)
        self.fit_button.setToolTip("Fit L(x) = a·x^(−b) + c to the selected runs")
        self.summary = QLabel(HINT)
        self.summary.setObjectName("fit_summary")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.plot = pg.PlotWidget()
        self.plot.setObjectName("fit_plot")
        self.plot.setLogMode(x=True, y=True)
        for side in ("left", "bottom"):
            self.plot.getAxis(side).enableAutoSIPrefix(False)  # "(x0.001)" on a log axis only confuses
        self.plot.getAxis("bottom").setStyle(maxTextLevel=0)  # label the decades only: minor labels collide
        self.plot.showGrid(x=True, y=True, alpha=0.3)
        self.plot.addLegend(offset=(-10, 10))

        row = QHBoxLayout()
        for label, w in (("Against", self.against), ("Loss", self.loss_box)):
            row.addWidget(QLabel(label))
            row.addWidget(w)
        row.addWidget(self.extrapolate)
        row.addWidget(self.fit_button)
        row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.summary)
        layout.addWidget(self.plot, 1)
        session.selection_changed.connect(lambda ids: self.fit_button.setEnabled(bool(ids)))
        self.fit_button.setEnabled(bool(session.selected_runs()))

    def fit(self) -> None:
        runs = self.session.selected_runs()
        if not runs or self.job.running:
            return
        self.error = None
        self.summary.setText("fitting…")
        self.fit_button.setEnabled(False)
        self.job.start(self.session.start_fit(FitRequest(tuple(runs), self.against.currentText(),
                                                         self.loss_box.currentText(), self.extrapolate.value(),
                                                         str(self.session.store.home))))

    def _on_failed(self, message: str) -> None:
        self.error = message
        self.summary.setText(f"<span style='color:#D55E00'>{message}</span>")
        self.fit_button.setEnabled(True)

    def _on_done(self, result: dict[str, Any]) -> None:
        self.result = result
        self.fit_button.setEnabled(True)
        lines = []
        for f in result["fits"]:
            p = f["predicted"]
            who = f["runs"][0] if len(f["runs"]) == 1 else f"{len(f['runs'])} runs"
            lines.append(f"<b>{who}</b>: L = {f['a']:.4g}·x<sup>−{f['b']:.3f}</sup> + {f['c']:.4f} "
                         f"(b ± {f['stderr']['b']:.2g}, r² {f['r2']:.3f}, {f['points']} points) — at "
                         f"{p['factor']:g}× ({p['x']:,.0f}): {p['loss']:.4f} [{p['low']:.4f}, {p['high']:.4f}]")
        self.summary.setText("<br>".join(lines))
        self.draw(result)

    def draw(self, result: dict[str, Any]) -> None:
        self.plot.clear()
        against, metric = result["against"], result["metric"]
        self.plot.setLabel("bottom", {"steps": "steps", "samples": "samples seen",
                                      "params": "parameters"}[against])
        self.plot.setLabel("left", metric)
        self.plot.setTitle(f"{metric} = a·x^(−b) + c, fitted and extrapolated (95 % band)")
        for i, f in enumerate(result["fits"]):
            colour = QColor(run_colour(i))
            c = f["curve"]
            lx, low, high = _log10(c["x"]), _log10(c["low"]), _log10(c["high"])
            lo_item = pg.PlotDataItem(lx, low, pen=pg.mkPen(None))
            hi_item = pg.PlotDataItem(lx, high, pen=pg.mkPen(None))
            band = QColor(colour)
            band.setAlpha(50)
            fill = pg.FillBetweenItem(lo_item, hi_item, brush=pg.mkBrush(band))
            self.plot.addItem(fill)  # its curves are in log10 space already: FillBetween has no log mode
            label = f["runs"][0][-8:] if len(f["runs"]) == 1 else "runs"
            inside = [j for j, x in enumerate(c["x"]) if x <= f["x_max"]]
            beyond = [j for j, x in enumerate(c["x"]) if x >= f["x_max"]]
            self.plot.plot([c["x"][j] for j in inside], [c["y"][j] for j in inside], pen=pg.mkPen(colour, width=2),
                           name=f"fit {label}: b={f['b']:.3f}, r²={f['r2']:.3f}")
            self.plot.plot([c["x"][j] for j in beyond], [c["y"][j] for j in beyond],
                           pen=pg.mkPen(colour, width=2, style=Qt.PenStyle.DashLine))
            self.plot.plot(f["data"]["x"], f["data"]["y"], pen=None, symbol="o", symbolSize=6,
                           symbolBrush=colour, symbolPen=None, name="runs" if len(f["runs"]) > 1 else "measured")
