"""The learning-rate range test's plot (pyqtgraph): the loss against the learning rate on a log axis — each step's
loss faint, the smoothed loss the suggestion is read from on top — with the suggested rates marked (the steepest
descent, and the minimum ÷ 10). The y range stops short of the blow-up at the ramp's end."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from studio.core.contracts.lr_find import LrFindResult
from studio.gui.plots.axes import plain_numbers
from studio.gui.plots.empty_hint import EmptyHint
from studio.gui.plots.log_axis import LogAxis
from studio.gui.plots.palette import OKABE_ITO

HINT = "Press Find to ramp the learning rate on a copy of the model (the settings on the left; nothing is kept)"
LINE, STEEPEST, MINIMUM = OKABE_ITO[0], OKABE_ITO[3], OKABE_ITO[2]
RAW_ALPHA = 70


def lr_plot() -> tuple[pg.PlotWidget, EmptyHint]:
    """An empty plot of loss against learning rate (log x) and the hint it shows until a test has run."""
    widget = pg.PlotWidget(axisItems={"left": LogAxis("left"), "bottom": LogAxis("bottom")})
    item = widget.getPlotItem()
    item.setTitle("Learning-rate range test")
    item.setLabel("bottom", "learning rate (log scale)")
    item.setLabel("left", "train loss")
    item.showGrid(x=True, y=True, alpha=0.25)
    plain_numbers(item.getAxis("left"))
    item.setLogMode(x=True)
    return widget, EmptyHint(widget, HINT)


def y_range(smoothed: np.ndarray, raw: np.ndarray) -> tuple[float, float]:
    """From the least loss (raw or smoothed) to the smoothed loss at the start, and a margin: the blow-up stays off
    the top."""
    finite = smoothed[np.isfinite(smoothed)]
    if not len(finite):
        return 0.0, 1.0
    low = raw[np.isfinite(raw)]
    lo = float(min(finite.min(), low.min() if len(low) else finite.min()))
    hi = float(max(finite[0], lo))
    pad = 0.1 * (hi - lo) or 0.1 * abs(hi) or 0.1
    return lo - pad, hi + 2 * pad


def draw_lr_find(widget: pg.PlotWidget, hint: EmptyHint, result: LrFindResult) -> dict[str, pg.InfiniteLine]:
    """Draw a result; the suggestion's marks by name (``steepest``, ``min_over_10``)."""
    widget.clear()
    lrs = np.asarray(result["lrs"], dtype=float)
    if not len(lrs):
        hint.show_hint("The range test took no step")
        return {}
    hint.hide_hint()
    raw = QColor(LINE)
    raw.setAlpha(RAW_ALPHA)
    losses = np.asarray(result["losses"], dtype=float)
    widget.plot(lrs, losses, pen=pg.mkPen(raw, width=1))
    smoothed = np.asarray(result["smoothed"], dtype=float)
    widget.plot(lrs, smoothed, pen=pg.mkPen(LINE, width=2))
    marks = {}
    s = result["suggestion"]
    for key, colour, words, value in (("steepest", STEEPEST, "steepest", s["steepest"]),
                                      ("min_over_10", MINIMUM, "min ÷ 10", s["min_over_10"])):
        if value is None or not value > 0:
            continue
        line = pg.InfiniteLine(pos=math.log10(value), angle=90,
                               pen=pg.mkPen(colour, width=2, style=Qt.PenStyle.DashLine),
                               label=f"{words} {value:.2g}", labelOpts={"color": colour, "position": 0.9})
        widget.addItem(line)
        marks[key] = line
    widget.setXRange(math.log10(lrs[0]), math.log10(lrs[-1]), padding=0.02)
    widget.setYRange(*y_range(smoothed, losses), padding=0)
    return marks
