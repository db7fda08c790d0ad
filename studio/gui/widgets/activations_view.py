"""Every layer's activations for one classified input (DIGITS' layer visualisation), drawn from an
``ActivationsResult`` (``engine/tasks/activations.py``): feature maps as a grid of small grey images (black: the
layer's smallest shown value, white: its largest), vector layers as a heat strip of their units."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage, QPixmap
from PySide6.QtWidgets import QLabel, QScrollArea, QVBoxLayout, QWidget

TILE = 56  # the longest side of a feature map's tile, in pixels (small maps are enlarged, never smoothed)
COLUMNS = 12  # feature maps per row, at most (fewer where the view is narrow)
GAP = 2
STRIP_WIDTH = 512  # a vector's strip: at most this wide (narrower in a narrow view), rows of at most 256 units
STRIP_ROW = 14
HINT = "Classify an image, select its row and press Show layer activations to see what each layer computes."


def _scaled(values: np.ndarray) -> np.ndarray:
    """``values`` mapped to 0..255 over their own range (a constant array is mid-grey)."""
    low, high = float(values.min()), float(values.max())
    if high <= low:
        return np.full(values.shape, 128, np.uint8)
    return ((values - low) / (high - low) * 255).round().astype(np.uint8)


def map_mosaic(maps: np.ndarray, tile: int = TILE, columns: int = COLUMNS) -> np.ndarray:
    """(C, h, w) maps as one grey uint8 image: a grid of ``columns`` tiles, each map enlarged by a whole factor."""
    count, h, w = maps.shape
    factor = max(1, tile // max(h, w))
    grey = _scaled(maps).repeat(factor, axis=1).repeat(factor, axis=2)
    th, tw = h * factor, w * factor
    cols = min(count, columns)
    rows = math.ceil(count / cols)
    out = np.full((rows * (th + GAP) - GAP, cols * (tw + GAP) - GAP), 96, np.uint8)
    for i in range(count):
        r, c = divmod(i, cols)
        out[r * (th + GAP):r * (th + GAP) + th, c * (tw + GAP):c * (tw + GAP) + tw] = grey[i]
    return out


def vector_strip(values: np.ndarray, width: int = STRIP_WIDTH) -> np.ndarray:
    """(D,) values as an RGB uint8 heat strip (viridis) about ``width`` wide, wrapped over rows of at most 256
    units (and of at most width / 2, so every unit is at least 2 pixels wide)."""
    cols = max(1, min(len(values), 256, width // 2))
    cell = max(2, width // cols)
    rows = math.ceil(len(values) / cols)
    lut = pg.colormap.get("viridis").getLookupTable(nPts=256, alpha=False)
    padded = np.zeros(rows * cols, np.uint8)
    padded[:len(values)] = _scaled(values)
    rgb = lut[padded].reshape(rows, cols, 3).astype(np.uint8)
    if len(values) < rows * cols:  # the cells past the last unit stay blank
        rgb.reshape(-1, 3)[len(values):] = 96
    return rgb.repeat(STRIP_ROW, axis=0).repeat(cell, axis=1)


def to_pixmap(image: np.ndarray) -> QPixmap:
    """A grey (H, W) or RGB (H, W, 3) uint8 array as a pixmap."""
    image = np.ascontiguousarray(image)
    h, w = image.shape[:2]
    fmt = QImage.Format.Format_Grayscale8 if image.ndim == 2 else QImage.Format.Format_RGB888
    return QPixmap.fromImage(QImage(image.data, w, h, image.strides[0], fmt).copy())


def caption(layer: Mapping[str, Any]) -> str:
    """``3 · MaxPool2d · 8×14×14 · values −0.2 to 1.3``, and how many maps are shown when not all are."""
    shape = "×".join(str(s) for s in layer["shape"])
    text = f"{layer['name']} · {layer['layer']} · {shape} · values {layer['low']:.3g} to {layer['high']:.3g}"
    shown = layer["values"].shape[0]
    if layer["kind"] == "maps" and shown < layer["shape"][0]:
        text += f" · first {shown} of {layer['shape'][0]} maps"
    elif layer["kind"] == "vector" and shown < math.prod(layer["shape"]):
        text += f" · first {shown} units"
    return text


class ActivationsView(QScrollArea):
    """A scrolling column: per layer a caption and its maps or strip; a hint before the first result."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setToolTip("Each layer's output for the selected input: feature maps (grey: the layer's lowest to "
                        "highest value) or a strip of units (viridis)")
        self.images: list[QLabel] = []
        self.pending = False  # asked for, not shown yet
        self.result: Mapping[str, Any] | None = None
        self._drawn_width = 0
        self.heading = QLabel(HINT)
        self.heading.setWordWrap(True)
        self._show_layers([])

    def _show_layers(self, labels: list[QLabel]) -> None:
        inner = QWidget()
        column = QVBoxLayout(inner)
        column.addWidget(self.heading)
        for label in labels:
            column.addWidget(label)
        column.addStretch(1)
        self.setWidget(inner)  # the previous column (and its labels) is deleted

    def clear_layers(self, text: str = HINT, pending: bool = False) -> None:
        self.pending, self.result = pending, None
        self.heading = QLabel(text)
        self.heading.setWordWrap(True)
        self.images = []
        self._show_layers([])

    def settle(self) -> None:
        """The job ended: if no result came (it failed or was cancelled), say so instead of "Computing…"."""
        if self.pending:
            self.clear_layers("No layer activations: the computation did not finish (the status above says why).")

    def show_result(self, result: Mapping[str, Any]) -> None:
        """Draw an ``ActivationsResult`` to fit the view's width (redrawn when the width changes)."""
        self.pending, self.result = False, result
        width = max(240, self.viewport().width() - 24)
        self._drawn_width = width
        name = Path(result["input"]).name if "/" in result["input"] else result["input"]
        self.heading = QLabel(f"{name}: {result['predicted']} ({result['probability']:.3f}), run "
                              f"{result['run_id']} ({result['checkpoint']}); {len(result['layers'])} layers, first "
                              "to last.")
        self.heading.setWordWrap(True)
        labels: list[QLabel] = []
        self.images = []
        for layer in result["layers"]:
            text = QLabel(caption(layer))
            text.setWordWrap(True)
            values = np.asarray(layer["values"], np.float32)
            if layer["kind"] == "maps":
                tile = max(values.shape[1:]) * max(1, TILE // max(values.shape[1:]))
                columns = max(1, min(COLUMNS, (width + GAP) // (tile + GAP)))
                image = map_mosaic(values, TILE, columns)
            else:
                image = vector_strip(values, min(STRIP_WIDTH, width))
            picture = QLabel()
            picture.setPixmap(to_pixmap(image))
            picture.setAlignment(Qt.AlignmentFlag.AlignLeft)
            picture.setToolTip(caption(layer))
            labels += [text, picture]
            self.images.append(picture)
        self._show_layers(labels)

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        if self.result is not None and abs(self.viewport().width() - 24 - self._drawn_width) > 30:
            self.show_result(self.result)
