"""Axes painted from a pixmap (gui/plots/pixmap_axis.py) look as pyqtgraph's own and are made again when the axis
changes."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QColor, QImage, QPainter

from studio.gui.plots.log_axis import LogAxis


class PlainLogAxis(LogAxis):
    """The oracle: the same axis painted as pyqtgraph paints it (its picture played at every paint). Set on the
    class before any instance: PySide6 keeps the override it finds first."""

    def paint(self, p, opt, widget):  # noqa: ANN001, ANN201 - Qt's
        pg.AxisItem.paint(self, p, opt, widget)


def _plot(qtbot, axis: type = LogAxis) -> pg.PlotWidget:
    widget = pg.PlotWidget(axisItems={"left": axis("left"), "bottom": axis("bottom")})
    widget.showGrid(x=True, y=True, alpha=0.25)
    widget.setLabel("bottom", "step")
    widget.plot([1, 2, 3, 4], [3.0, 1.0, 2.0, 0.5])
    widget.resize(420, 300)
    qtbot.addWidget(widget)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def _pixels(widget: pg.PlotWidget) -> np.ndarray:
    image = widget.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
    return np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.width(), 4)[..., :3].astype(int)


def _differ(a: np.ndarray, b: np.ndarray) -> int:
    """Pixels that differ clearly (text edges may round a little differently on a transparent pixmap)."""
    return int((np.abs(a - b).max(axis=2) > 48).sum())


def test_the_pixmap_looks_like_the_picture_and_follows_a_new_range(qtbot):
    widget, oracle = _plot(qtbot), _plot(qtbot, PlainLogAxis)
    axis = widget.getAxis("bottom")
    first = _pixels(widget)  # the first paint plays the picture
    cached = _pixels(widget)  # the second makes the pixmap
    assert axis._pixmap is not None
    assert _differ(first, _pixels(oracle)) == 0
    assert _differ(cached, _pixels(oracle)) <= 20

    for plot in (widget, oracle):  # new ticks: pyqtgraph drops its picture
        plot.setXRange(10, 1000, padding=0)
    _pixels(widget)
    moved = _pixels(widget)
    assert axis._pixmap is not None
    assert _differ(moved, _pixels(oracle)) <= 20  # not the old pixmap
    assert _differ(moved, cached) > 100


def _painted_at_twice(widget: pg.PlotWidget) -> np.ndarray:
    """The left axis painted at twice its size for the widget, as an export at another size paints it."""
    axis = widget.getAxis("left")
    rect = axis.boundingRect()
    image = QImage(int(rect.width() * 2) + 2, int(rect.height() * 2) + 2, QImage.Format.Format_RGB32)
    image.fill(QColor(40, 140, 60))  # unlike a light or a dark theme's text
    painter = QPainter(image)
    painter.scale(2, 2)
    painter.translate(-rect.topLeft())
    axis.paint(painter, None, widget.viewport())
    painter.end()
    return np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.width(), 4)[..., :3].astype(int)


def test_a_scaled_painter_gets_the_picture_itself(qtbot):
    widget, oracle = _plot(qtbot), _plot(qtbot, PlainLogAxis)
    for plot in (widget, widget, oracle):  # each ranged and painted; the widget's axis then has its pixmap
        _pixels(plot)
    assert widget.getAxis("left")._pixmap is not None
    assert _differ(_painted_at_twice(widget), _painted_at_twice(oracle)) <= 20  # crisp, not the pixmap blown up
