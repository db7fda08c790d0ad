"""Draw a digit: a 28×28 greyscale pad for the Predict page of a run trained on 28×28 grey images (MNIST-like).
The left button draws a soft stroke (as MNIST's pen), the right button erases, Clear empties it. ``picture()`` is
the drawing as MNIST prepares its digits: the strokes fitted into 20×20 pixels and centred by their centre of mass
in the 28×28 frame, white on black."""

from __future__ import annotations

from typing import Any

import numpy as np
from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QImage, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

SIDE = 28
PEN = 1.6  # the stroke's radius in pixels of the 28×28 picture


class DigitPad(QWidget):
    """``drawn()`` when a stroke ends; ``ink`` is the raw 28×28 drawing in [0, 1]."""

    drawn = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("digit_pad")
        self.ink = np.zeros((SIDE, SIDE), dtype=np.float32)
        self.setMinimumSize(140, 140)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self.setCursor(Qt.CursorShape.CrossCursor)
        self.setToolTip("Draw a digit with the mouse (the right button erases); it is classified when you let go")
        self._last: tuple[float, float] | None = None
        self._erase = False
        yy, xx = np.mgrid[0:SIDE, 0:SIDE]
        self._grid = (xx.astype(np.float32) + 0.5, yy.astype(np.float32) + 0.5)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(196, 196)

    def hasHeightForWidth(self) -> bool:  # noqa: N802
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802
        return width

    def is_empty(self) -> bool:
        return not bool(self.ink.any())

    def clear(self) -> None:
        self.ink[:] = 0
        self.update()

    # --- drawing ------------------------------------------------------------------------------
    def _square(self) -> QRectF:
        side = float(min(self.width(), self.height()))
        return QRectF((self.width() - side) / 2, (self.height() - side) / 2, side, side)

    def _to_pixels(self, pos: QPointF) -> tuple[float, float]:
        square = self._square()
        return ((pos.x() - square.x()) * SIDE / square.width(), (pos.y() - square.y()) * SIDE / square.height())

    def stroke(self, start: tuple[float, float], end: tuple[float, float], erase: bool = False) -> None:
        """Draw (or erase) a line from ``start`` to ``end`` in picture pixels (0..28)."""
        steps = max(1, int(np.hypot(end[0] - start[0], end[1] - start[1]) * 3))
        xs, ys = self._grid
        for t in np.linspace(0.0, 1.0, steps + 1):
            cx, cy = start[0] + (end[0] - start[0]) * t, start[1] + (end[1] - start[1]) * t
            dab = np.clip(1.5 - np.hypot(xs - cx, ys - cy) / PEN, 0.0, 1.0)
            self.ink = np.minimum(self.ink, 1.0 - dab) if erase else np.maximum(self.ink, dab)
        self.update()

    def mousePressEvent(self, event: Any) -> None:  # noqa: N802
        self._erase = event.button() == Qt.MouseButton.RightButton
        self._last = self._to_pixels(event.position())
        self.stroke(self._last, self._last, self._erase)

    def mouseMoveEvent(self, event: Any) -> None:  # noqa: N802
        if self._last is None:
            return
        here = self._to_pixels(event.position())
        self.stroke(self._last, here, self._erase)
        self._last = here

    def mouseReleaseEvent(self, event: Any) -> None:  # noqa: N802
        if self._last is not None:
            self._last = None
            self.drawn.emit()

    def paintEvent(self, event: Any) -> None:  # noqa: N802
        grey = np.ascontiguousarray((self.ink * 255).astype(np.uint8))
        image = QImage(grey.data, SIDE, SIDE, SIDE, QImage.Format.Format_Grayscale8)
        painter = QPainter(self)
        square = self._square()
        painter.drawImage(square, image)
        painter.setPen(QPen(QColor("#808080"), 1))
        painter.drawRect(square.adjusted(0, 0, -1, -1))
        if self.is_empty():
            painter.setPen(QColor("#a0a0a0"))
            painter.drawText(square, int(Qt.AlignmentFlag.AlignCenter), "draw a digit here")
        painter.end()

    # --- the picture --------------------------------------------------------------------------
    def picture(self) -> np.ndarray:
        """The drawing as a 28×28 uint8 image prepared as MNIST's digits are (fitted into 20×20, centred by mass)."""
        return centred(self.ink)


def centred(ink: np.ndarray, box: int = 20) -> np.ndarray:
    """``ink`` (28×28, [0, 1]) cropped to its strokes, scaled so the longer side is ``box`` pixels, placed so its
    centre of mass is the frame's centre; uint8, white on black. An empty drawing stays empty."""
    from PIL import Image

    rows, cols = np.nonzero(ink > 0.05)
    if not len(rows):
        return np.zeros((SIDE, SIDE), dtype=np.uint8)
    crop = ink[rows.min(): rows.max() + 1, cols.min(): cols.max() + 1]
    h, w = crop.shape
    scale = box / max(h, w)
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    small = np.asarray(Image.fromarray((crop * 255).astype(np.uint8)).resize(size, Image.Resampling.LANCZOS),
                       dtype=np.float32)
    total = small.sum()
    cy, cx = ((np.arange(small.shape[0]) @ small.sum(axis=1)) / total, (np.arange(small.shape[1]) @ small.sum(axis=0))
              / total) if total > 0 else (small.shape[0] / 2, small.shape[1] / 2)
    top, left = int(round(SIDE / 2 - cy - 0.5)), int(round(SIDE / 2 - cx - 0.5))
    top, left = min(max(top, 0), SIDE - small.shape[0]), min(max(left, 0), SIDE - small.shape[1])
    out = np.zeros((SIDE, SIDE), dtype=np.float32)
    out[top: top + small.shape[0], left: left + small.shape[1]] = small
    return np.clip(out, 0, 255).astype(np.uint8)
