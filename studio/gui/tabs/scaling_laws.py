"""The Scaling-laws tab: fit L(x) = a·x^(−b) + c to the runs ticked in its run list (the run list's selection, too:
``gui/widgets/run_picker.RunChecklist``), their loss against steps, samples seen or
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
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from studio.core.contracts.scaling import FitRequest
from studio.core.errors import ConfigError
from studio.core.maths.scaling_fit import AGAINST
from studio.core.vocab import Metric
from studio.gui.plots.axes import plain_numbers
from studio.gui.plots.empty_hint import EmptyHint
from studio.gui.plots.palette import run_colour
from studio.gui.widgets.forms import TidySpinBox
from studio.gui.widgets.job_panel import JobPanel, Words
from studio.gui.widgets.run_picker import RunChecklist, run_names

HINT = ("Select one or more runs in the Training tab's run list. Against steps or samples each run gets its own "
        "fit; against parameters (or non_embedding, Kaplan's N), select 4 or more runs of different model sizes: "
        "\"Queue sizes\" trains them.")
AXIS_LABELS = {"steps": "steps", "samples": "samples seen", "params": "parameters",
               "non_embedding": "non-embedding parameters (Kaplan's N)"}
SIZE_SWEEP_HELP = ("Queue one run of the current settings per value of a size setting of the model (e.g. "
                   "model.d_model = 32, 64, 128, 256 for gpt_lm): when they have finished, select them and fit "
                   "against non_embedding (Kaplan et al. 2020) or params")
METRICS = (Metric.VAL_LOSS.value, Metric.TRAIN_LOSS.value)
# A fit whose r² is below this explains less than half the loss's variance: it is no law to extrapolate, and its 95 %
# band (issue 33.8: r² = 0.000 drew one over the whole plot) says nothing; the fit is drawn, the band is not, and the
# summary says why.
MIN_R2 = 0.5


def poor_fit(r2: float) -> bool:
    """Whether a fit explains too little to extrapolate (r² below ``MIN_R2``, or undefined: a flat loss)."""
    return not (math.isfinite(r2) and r2 >= MIN_R2)


def _log10(values: list[float]) -> list[float]:
    return [math.log10(v) if v > 0 else float("nan") for v in values]


def _number(v: float) -> str:
    return f"{v:g}" if 1e-3 <= v < 1e5 else f"{v:.0e}".replace("e+0", "e").replace("e-0", "e-")


def log_ticks(lo: float, hi: float, most: int = 7) -> list[list[tuple[float, str]]]:
    """Ticks for a log axis over ``lo…hi`` (values, not logs), as ``AxisItem.setTicks`` takes them in log mode:
    labelled 1·, 2·, 5·10^k while at most ``most`` fit, else decades only (every other one if need be), and
    unlabelled minor ticks; plain numbers ("20", "0.05", "1e6") instead of pyqtgraph's crowded "2·10¹"."""
    if not (lo > 0 and hi > lo and math.isfinite(hi)):
        return [[], []]
    k0, k1 = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    inside = [m * 10.0 ** k for k in range(k0, k1 + 1) for m in range(1, 10) if lo <= m * 10.0 ** k <= hi]
    for steps in ((1, 2, 5), (1,)):
        major = [v for v in inside if round(v / 10 ** math.floor(math.log10(v) + 1e-9)) in steps]
        if len(major) <= most:
            break
    while len(major) > most:
        major = major[::2]
    minor = [v for v in inside if v not in major]
    return [[(math.log10(v), _number(v)) for v in major], [(math.log10(v), "") for v in minor]]


class ScalingLawsTab(QWidget):
    # it works on stored runs, not on the next run's settings: the window gives it the settings panel's width
    # (at 1024 px its plots were cramped beside the panel; issue 22)
    uses_settings_panel = False

    def __init__(self, session: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.result: dict[str, Any] | None = None
        self.names: dict[str, str] = {}  # run id → the run list's name, for the legend and the summary
        # Fit (Cancel while it runs: one button, in the row of its settings), the bar and the summary line
        self.panel = JobPanel("Fit", toggle=True, words=Words(idle=HINT, starting="fitting…", failed="{message}"),
                              status_lines=3)  # a line per fit
        self.panel.run_clicked.connect(self.fit)
        self.panel.done.connect(self._on_done)

        self.against = QComboBox()
        self.against.setObjectName("fit_against")
        self.against.addItems(AGAINST)
        self.against.setToolTip("x: optimizer steps, samples seen (steps × batch), the model's parameter count, or "
                                "its parameters outside the embeddings (non_embedding: Kaplan et al.'s N)")
        self.loss_box = QComboBox()
        self.loss_box.setObjectName("fit_metric")
        self.loss_box.setEditable(True)
        self.loss_box.addItems(METRICS)
        edit = self.loss_box.lineEdit()  # an editable combo box has one
        if edit is not None:
            edit.setToolTip("The metric's name as the run logged it, e.g. val/loss")
        self.loss_box.setToolTip("The loss to fit: validation loss (a point per epoch) or training loss (more points)")
        self.extrapolate = TidySpinBox()
        self.extrapolate.setRange(1.0, 1000.0)
        self.extrapolate.setValue(4.0)
        self.extrapolate.setPrefix("predict at ")
        self.extrapolate.setSuffix(" × x")
        self.extrapolate.setToolTip("Predict the loss at this multiple of the largest x (steps, samples or parameters)")
        self.fit_button = self.panel.run_button
        self.fit_button.setObjectName("fit_button")
        self.fit_button.setToolTip("Fit L(x) = a·x^(−b) + c to the selected runs")
        self.summary = self.panel.status
        self.summary.setObjectName("fit_summary")
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.picker = RunChecklist("The runs to fit: tick one or more (the run list's selection, too)")
        self.picker.picked.connect(self.session.set_selection)
        self.plot = pg.PlotWidget()
        self.plot.setObjectName("fit_plot")
        self.plot.setLogMode(x=True, y=True)
        for side in ("left", "bottom"):
            plain_numbers(self.plot.getAxis(side))  # "(x0.001)" on a log axis only confuses
        for side in ("left", "bottom"):  # ticks from log_ticks (pyqtgraph's minor labels collided)
            self.plot.getAxis(side).setStyle(hideOverlappingLabels=True)
        self.plot.showGrid(x=True, y=True, alpha=0.3)
        # the legend sits under the plot, not over the lines (where the fits start, top left, and the
        # extrapolation ends, right, there is no free corner to put it in)
        self.legend = pg.LegendItem(colCount=2, horSpacing=18)
        self.plot.getPlotItem().layout.addItem(self.legend, 5, 1, 1, 3)
        self.empty = EmptyHint(self.plot, "Select runs in the Training tab's run list and press Fit: their loss "
                                          "against steps, samples or parameters, the fitted power law and where "
                                          "it leads")

        row = QHBoxLayout()
        for label, w in (("Against", self.against), ("Loss", self.loss_box)):
            row.addWidget(QLabel(label))
            row.addWidget(w)
        row.addWidget(self.extrapolate)
        row.addWidget(self.fit_button)
        row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addLayout(self._size_sweep_row())
        layout.addWidget(self.panel)
        sides = QSplitter(Qt.Orientation.Horizontal)
        sides.addWidget(self.picker)
        sides.addWidget(self.plot)
        sides.setStretchFactor(1, 1)
        sides.setSizes([230, 800])
        layout.addWidget(sides, 1)
        session.selection_changed.connect(self._follow_selection)
        session.runs_changed.connect(self.refresh_runs)
        self.refresh_runs()

    def refresh_runs(self) -> None:
        """Every run by name, the selected ones ticked."""
        runs = self.session.store.list()
        names = run_names(self.session, runs)
        self.picker.set_runs(((r.id, names.get(r.id, r.name), r.status) for r in runs), self.session.selected_runs())
        self.panel.set_runnable(bool(self.picker.checked()))  # Fit needs runs

    def _follow_selection(self, run_ids: list[str]) -> None:
        self.picker.check(run_ids)
        self.panel.set_runnable(bool(self.picker.checked()))

    def _size_sweep_row(self) -> QHBoxLayout:
        """Queue a sweep of the model's size (the queue's sweep, ``core/config/sweep.py``), for a fit against size."""
        self.size_key = QComboBox()
        self.size_key.setObjectName("size_sweep_key")
        self.size_key.setEditable(True)
        self.size_key.setMinimumContentsLength(14)
        self.size_key.setToolTip("The model's size setting to vary (section.key)")
        edit = self.size_key.lineEdit()  # an editable combo box has one
        if edit is not None:
            edit.setToolTip(self.size_key.toolTip())
        self.size_values = QLineEdit()
        self.size_values.setObjectName("size_sweep_values")
        self.size_values.setPlaceholderText("32, 64, 128, 256")
        self.size_values.setToolTip(SIZE_SWEEP_HELP)
        self.size_button = QPushButton("Queue sizes")
        self.size_button.setObjectName("size_sweep_queue")
        self.size_button.setToolTip(SIZE_SWEEP_HELP)
        self.size_button.clicked.connect(self.queue_sizes)
        self._fill_size_keys()
        self.session.config_changed.connect(lambda *_a: self._fill_size_keys())
        row = QHBoxLayout()
        row.addWidget(QLabel("Sizes"))
        row.addWidget(self.size_key)
        row.addWidget(QLabel("over"))
        row.addWidget(self.size_values, 1)
        row.addWidget(self.size_button)
        return row

    def size_keys(self) -> list[str]:
        """The current model's integer settings (``model.d_model``, ``model.layers``, ``model.widths`` …)."""
        from studio.core.models.catalog import MODELS

        try:
            entry = MODELS.get(self.session.config.model.name)
        except Exception:  # noqa: BLE001 - an unknown model is reported where it is chosen
            return []
        return [f"model.{p.name}" for p in entry.params if p.kind in ("int", "ints")]

    def _fill_size_keys(self) -> None:
        keys = self.size_keys()
        current = self.size_key.currentText()
        self.size_key.blockSignals(True)
        self.size_key.clear()
        self.size_key.addItems(keys)
        preferred = [k for k in ("model.d_model", "model.widths", "model.hidden") if k in keys]
        self.size_key.setCurrentText(current if current in keys else (preferred or keys or [""])[0])
        self.size_key.blockSignals(False)

    def queue_sizes(self) -> list[str]:
        """Queue one run per value of the size setting; the ids queued (none, with the reason shown, if the
        values do not make valid configs)."""
        from studio.core.config.sweep import sweep_configs, sweep_values
        from studio.core.errors import StudioError

        key, text = self.size_key.currentText().strip(), self.size_values.text().strip()
        try:
            if not text:
                raise ConfigError(f"give the values of {key or 'the size setting'}, e.g. 32, 64, 128, 256")
            points = sweep_configs(self.session.config, {key: sweep_values(text)})
        except StudioError as err:
            self.panel.show_status(str(err), error=True)
            return []
        ids = self.session.enqueue(points)
        if ids:
            self.panel.show_status(f"Queued {len(ids)} runs of {key} = {text}. When they have finished, select "
                                   f"them in the run list and fit against non_embedding or params.")
        return ids

    def fit(self) -> None:
        runs = self.picker.checked()
        if not runs or self.panel.busy:
            return
        self.panel.start(self.session.start(FitRequest(tuple(runs), self.against.currentText(),
                                                       self.loss_box.currentText(), self.extrapolate.value(),
                                                       str(self.session.store.home))))

    def run_label(self, runs: list[str]) -> str:
        """A fit's name as the run list names its run (by the settings that differ), or "N runs"."""
        if len(runs) != 1:
            return f"{len(runs)} runs"
        return self.names.get(runs[0], runs[0])

    def _name_runs(self) -> None:
        try:
            self.names = run_names(self.session)
        except Exception:  # noqa: BLE001 - names are a nicety; the ids still say which run
            self.names = {}

    def _on_done(self, result: dict[str, Any]) -> None:
        self.result = result
        self._name_runs()
        lines = []
        for f in result["fits"]:
            p = f["predicted"]
            who = self.run_label(f["runs"])
            if poor_fit(f["r2"]):
                lines.append(f"⚠ <b>{who}</b>: the power law explains little of this loss (r² {f['r2']:.3f}, below "
                             f"{MIN_R2:g}): no prediction and no band. Fit more points, a longer run or runs of "
                             "more sizes.")
                continue
            lines.append(f"<b>{who}</b>: L = {f['a']:.4g}·x<sup>−{f['b']:.3f}</sup> + {f['c']:.4f} "
                         f"(b ± {f['stderr']['b']:.2g}, r² {f['r2']:.3f}, {f['points']} points) — at "
                         f"{p['factor']:g}× ({p['x']:,.0f}): {p['loss']:.4g} [{p['low']:.4g}, {p['high']:.4g}]")
        self.panel.show_status("<br>".join(lines))
        self.draw(result)

    def draw(self, result: dict[str, Any]) -> None:
        self.plot.clear()
        self.legend.clear()
        self.empty.hide_hint()
        against, metric = result["against"], result["metric"]
        self.plot.setLabel("bottom", AXIS_LABELS.get(against, against))
        self.plot.setLabel("left", metric)
        self.plot.setTitle(f"{metric} = a·x^(−b) + c, fitted and extrapolated (95 % band)")
        marks: list[tuple[Any, str]] = []
        xs: list[float] = []
        ys: list[float] = []
        for i, f in enumerate(result["fits"]):
            colour = QColor(run_colour(i))
            c = f["curve"]
            lx, low, high = _log10(c["x"]), _log10(c["low"]), _log10(c["high"])
            lo_item = pg.PlotDataItem(lx, low, pen=pg.mkPen(None))
            hi_item = pg.PlotDataItem(lx, high, pen=pg.mkPen(None))
            poor = poor_fit(f["r2"])
            if not poor:  # a poor fit's band spans the plot and says nothing (MIN_R2)
                band = QColor(colour)
                band.setAlpha(50)
                fill = pg.FillBetweenItem(lo_item, hi_item, brush=pg.mkBrush(band))
                self.plot.addItem(fill)  # its curves are in log10 space already: FillBetween has no log mode
            label = self.run_label(f["runs"])
            inside = [j for j, x in enumerate(c["x"]) if x <= f["x_max"]]
            beyond = [] if poor else [j for j, x in enumerate(c["x"]) if x >= f["x_max"]]
            fitted = self.plot.plot([c["x"][j] for j in inside], [c["y"][j] for j in inside],
                                    pen=pg.mkPen(colour, width=2))
            ahead = self.plot.plot([c["x"][j] for j in beyond], [c["y"][j] for j in beyond],
                                   pen=pg.mkPen(colour, width=2, style=Qt.PenStyle.DashLine))
            data = self.plot.plot(f["data"]["x"], f["data"]["y"], pen=None, symbol="o", symbolSize=6,
                                  symbolBrush=colour, symbolPen=None)
            self.legend.addItem(fitted, f"{label}: b = {f['b']:.3f}, r² = {f['r2']:.3f}{' (poor fit)' if poor else ''}")
            marks = marks or [(data, "measured")]
            if not poor and len(marks) == 1:
                marks.append((ahead, "extrapolated (95 % band shaded)"))
            xs += [*c["x"], *f["data"]["x"]]
            ys += [*c["y"], *f["data"]["y"]]  # not the band: where the data stop it may span decades
        for item, text in marks:  # what the marks mean, once, after the fits
            self.legend.addItem(item, text)
        for side, values in (("bottom", xs), ("left", ys)):
            shown = [v for v in values if v > 0 and math.isfinite(v)]
            if shown:
                lo, hi = min(shown), max(shown)
                if side == "left":  # the data and the fits decide the range; a wide band runs off the plot
                    lo, hi = lo / 1.6, hi * 1.6
                    self.plot.setYRange(math.log10(lo), math.log10(hi), padding=0)
                self.plot.getAxis(side).setTicks(log_ticks(lo, hi))
