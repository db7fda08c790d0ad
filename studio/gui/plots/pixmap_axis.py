"""An axis painted from a pixmap: pyqtgraph keeps an axis (ticks, labels, grid lines) as a ``QPicture`` and replays
it at every paint, which lays its text out again each time (~3 ms an axis on the CPU: the curves' 8 axes were most
of a live redraw's paint). Here the picture is played once into a pixmap the size of the axis's bounding rect,
and later paints copy the pixmap. It is made again whenever pyqtgraph drops its picture (a new range, font, label,
grid or size) or the screen's pixel ratio changes, on the new picture's second paint: its first plays it as
pyqtgraph does, so an interaction that repaints once pays nothing for a pixmap it would not use.

Painters that scale or rotate (a figure exported at another size) and painters on anything but a widget get the
picture itself, as pyqtgraph draws it: a pixmap would be blurred there.
"""

from __future__ import annotations

import math
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QPainter, QPixmap
from PySide6.QtWidgets import QWidget


class PixmapAxis(pg.AxisItem):
    """``pg.AxisItem`` painted from a cached pixmap on screen (see the module doc)."""

    _pixmap: QPixmap | None = None
    _pixmap_of: tuple[Any, QRectF, float] | None = None  # (pyqtgraph's picture, bounding rect, pixel ratio)
    _played: Any = None  # the picture last played directly

    def paint(self, p: QPainter, opt: Any, widget: Any) -> None:
        """A picture's first paint plays it, as pyqtgraph does (an interaction paints once: a pixmap would only add
        to it); a second paint of the same picture makes the pixmap, and every later one copies it."""
        transform = p.worldTransform()  # (ordering QTransform.type() against TxTranslate crashed PySide6 6.x)
        if not isinstance(widget, QWidget) or transform.isScaling() or transform.isRotating():
            super().paint(p, opt, widget)
            return
        rect = self.boundingRect()
        key = (self.picture, rect, widget.devicePixelRatioF())
        if self._pixmap is None or self.picture is None or key != self._pixmap_of:
            if self.picture is None or self.picture is not self._played:
                super().paint(p, opt, widget)
                self._played, self._pixmap = self.picture, None
                return
            self._pixmap = self._rendered(p, opt, widget, rect, key[2])
            self._pixmap_of = key
        p.drawPixmap(rect.topLeft(), self._pixmap)

    def _rendered(self, p: QPainter, opt: Any, widget: Any, rect: QRectF, ratio: float) -> QPixmap:
        pixmap = QPixmap(max(1, math.ceil(rect.width() * ratio)), max(1, math.ceil(rect.height() * ratio)))
        pixmap.setDevicePixelRatio(ratio)
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        try:
            painter.setRenderHints(p.renderHints())
            painter.setFont(p.font())
            painter.translate(-rect.topLeft())
            super().paint(painter, opt, widget)  # makes pyqtgraph's picture when it has none, and plays it
        finally:
            painter.end()
        return pixmap
