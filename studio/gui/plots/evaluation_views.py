"""The views of an evaluation (``core/maths/evaluation.py``'s summary): confusion matrix heat map, per-class table,
reliability diagram and a gallery of the most confident mistakes. Torch-free; they draw plain dicts and
numpy arrays."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QColor, QIcon, QImage, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHeaderView,
    QListView,
    QListWidget,
    QListWidgetItem,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from studio.gui.plots.axes import plain_numbers
from studio.gui.plots.empty_hint import EmptyHint

MATRIX_COLOURS = pg.ColorMap([0.0, 1.0], [(247, 251, 255), (8, 69, 148)])  # white → blue ("Blues")
PER_CLASS_COLUMNS = ("class", "n", "precision", "recall", "F1")  # n: the class's examples (support)
THUMB = 84


class NumberItem(QTableWidgetItem):
    """A table cell that sorts by its number, not its text."""

    def __init__(self, value: float, text: str) -> None:
        super().__init__(text)
        self.value = value
        self.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)

    def __lt__(self, other: QTableWidgetItem) -> bool:
        return self.value < getattr(other, "value", 0.0)


class ConfusionView(QWidget):
    """Confusion matrix as a heat map with the count (or row share) written in each cell."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.normalised = QCheckBox("Normalised (each row: share of the true class)")
        self.normalised.setToolTip("Off: counts. On: each row divided by the class's number of examples, so the "
                                   "diagonal is the per-class recall")
        self.normalised.toggled.connect(self.redraw)
        self.plot = pg.PlotWidget()
        self.plot.setAspectLocked(False)
        self.plot.invertY(True)
        self.plot.setMenuEnabled(False)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        self.plot.setLabel("left", "true class")
        self.plot.setLabel("bottom", "predicted class")
        for side in ("left", "bottom"):  # no tick marks: at 1024 px they touched the first column ("17" read "−17")
            axis = self.plot.getAxis(side)
            axis.setStyle(tickLength=0, tickTextOffset=6)
            plain_numbers(axis)
        self.empty = EmptyHint(self.plot, "Evaluate a run (Run, Checkpoint, Data, then Evaluate) to see which "
                                          "classes it confuses")
        self.image = pg.ImageItem(axisOrder="row-major")
        self.plot.addItem(self.image)
        self.texts: list[pg.TextItem] = []
        self.counts: np.ndarray | None = None
        self.classes: list[str] = []
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.normalised)
        layout.addWidget(self.plot, 1)

    def show_matrix(self, counts: list[list[int]], classes: list[str]) -> None:
        self.counts, self.classes = np.asarray(counts), list(classes)
        k = len(classes)
        self.plot.getAxis("left").setTicks([[(i + 0.5, f"{i} {name}") for i, name in enumerate(classes)]])
        self.plot.getAxis("bottom").setTicks([[(i + 0.5, str(i)) for i in range(k)]])
        self.plot.setXRange(0, k, padding=0)
        self.plot.setYRange(0, k, padding=0)
        self.empty.hide_hint()
        self.redraw()

    def shown_values(self) -> np.ndarray:
        if self.counts is None:
            return np.zeros((0, 0))
        if not self.normalised.isChecked():
            return self.counts.astype(float)
        sums = self.counts.sum(axis=1, keepdims=True)
        return np.divide(self.counts, sums, out=np.zeros(self.counts.shape), where=sums > 0)

    def redraw(self) -> None:
        for t in self.texts:
            self.plot.removeItem(t)
        self.texts.clear()
        if self.counts is None:
            return
        values = self.shown_values()
        top = values.max() if values.size and values.max() > 0 else 1.0
        self.image.setImage(values, levels=(0, top), lut=MATRIX_COLOURS.getLookupTable(nPts=256))
        self.image.setRect(0, 0, values.shape[1], values.shape[0])
        k = len(values)
        if k > 20:  # the colours carry it; numbers would not fit
            return
        for (i, j), v in np.ndenumerate(values):
            text = f"{v:.2f}" if self.normalised.isChecked() else f"{int(v)}"
            colour = "w" if v > 0.55 * top else "k"
            item = pg.TextItem(text, color=colour, anchor=(0.5, 0.5))
            item.setPos(j + 0.5, i + 0.5)
            self.plot.addItem(item)
            self.texts.append(item)


def fill_per_class(table: QTableWidget, per_class: Sequence[Mapping[str, Any]]) -> None:
    """One sortable row per class: name, support, precision, recall, F1."""
    table.setSortingEnabled(False)
    table.setColumnCount(len(PER_CLASS_COLUMNS))
    table.setHorizontalHeaderLabels(list(PER_CLASS_COLUMNS))
    table.setRowCount(len(per_class))
    for r, c in enumerate(per_class):
        table.setItem(r, 0, QTableWidgetItem(c["class"]))
        table.setItem(r, 1, NumberItem(c["support"], str(c["support"])))
        for col, key in enumerate(("precision", "recall", "f1"), start=2):
            table.setItem(r, col, NumberItem(c[key], f"{c[key]:.3f}"))
    table.setSortingEnabled(True)
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
    header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)


def per_class_table() -> QTableWidget:
    table = QTableWidget()
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.verticalHeader().setVisible(False)
    table.setToolTip("n: the class's examples in the split. Precision: of the examples predicted as the class, "
                     "the share that are. Recall (= the class's accuracy): of the class's examples, the share "
                     "found. F1: their harmonic mean. Click a header to sort.")
    return table


class ReliabilityView(pg.PlotWidget):
    """Accuracy against confidence per bin (bars), the diagonal of perfect calibration, and the ECE."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, title="Reliability")
        self.setLabel("bottom", "confidence (top probability)")
        self.setLabel("left", "accuracy")
        self.setXRange(0, 1, padding=0.02)
        self.setYRange(0, 1, padding=0.02)
        self.showGrid(x=True, y=True, alpha=0.2)
        self.setMenuEnabled(False)
        self.addLegend(offset=(10, 10), brush=pg.mkBrush(128, 128, 128, 40))
        self.plot([0, 1], [0, 1], pen=pg.mkPen("#888888", width=1, style=Qt.PenStyle.DashLine),
                  name="perfectly calibrated")
        self.bars = pg.BarGraphItem(x0=[], x1=[], height=[], brush=pg.mkBrush("#0072B2"), name="accuracy")
        self.addItem(self.bars)
        self.gaps = pg.BarGraphItem(x0=[], x1=[], y0=[], y1=[], brush=pg.mkBrush(213, 94, 0, 90),
                                    pen=pg.mkPen("#D55E00"), name="gap to the mean confidence")
        self.addItem(self.gaps)
        self.ece = float("nan")
        self.empty = EmptyHint(self, "Evaluate a run to see how well its confidence matches its accuracy")

    def show_reliability(self, rel: Mapping[str, Any]) -> None:
        edges = np.asarray(rel["edges"])
        acc = np.array([np.nan if a is None else a for a in rel["accuracy"]], float)
        conf = np.array([np.nan if c is None else c for c in rel["confidence"]], float)
        filled = np.isfinite(acc)
        x0, x1 = edges[:-1][filled], edges[1:][filled]
        self.bars.setOpts(x0=x0, x1=x1, height=acc[filled])
        self.gaps.setOpts(x0=x0, x1=x1, y0=np.minimum(acc, conf)[filled], y1=np.maximum(acc, conf)[filled])
        self.ece = float(rel["ece"])
        self.empty.hide_hint()
        self.setTitle(f"Reliability · ECE {self.ece:.4f}")
        self.setToolTip(f"Predictions binned by confidence into {len(edges) - 1} equal bins: each bar is the bin's "
                        "accuracy, orange the gap to its mean confidence; ECE is the gaps averaged, weighted by "
                        "the bins' counts (Guo et al. 2017)")


def image_icon(image: np.ndarray, size: int = THUMB) -> QIcon:
    """A uint8 (C, H, W) image as an icon (grey or RGB), scaled without smoothing."""
    arr = np.ascontiguousarray(image[0] if image.shape[0] == 1 else image.transpose(1, 2, 0))
    h, w = arr.shape[:2]
    fmt = QImage.Format.Format_Grayscale8 if arr.ndim == 2 else QImage.Format.Format_RGB888
    qimage = QImage(arr.data, w, h, arr.strides[0], fmt).copy()
    pixmap = QPixmap.fromImage(qimage).scaled(size, size, Qt.AspectRatioMode.KeepAspectRatio,
                                              Qt.TransformationMode.FastTransformation)
    return QIcon(pixmap)


class MistakeGallery(QListWidget):
    """The most confident mistakes: the image, its true class, the predicted class and its probability."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setViewMode(QListView.ViewMode.IconMode)
        self.setResizeMode(QListView.ResizeMode.Adjust)
        self.setMovement(QListView.Movement.Static)
        self.setIconSize(QSize(THUMB, THUMB))
        self.setGridSize(QSize(THUMB + 66, THUMB + 52))
        self.setWordWrap(True)
        self.setSpacing(4)
        self.setToolTip("The wrong predictions the model was most sure of, most confident first")

    def show_mistakes(self, mistakes: Sequence[Mapping[str, Any]], images: np.ndarray | None) -> None:
        self.clear()
        for i, m in enumerate(mistakes):
            text = f"true: {m['true']}\npred: {m['predicted']} {m['probability']:.2f}"
            item = QListWidgetItem(text)
            if images is not None and i < len(images):
                item.setIcon(image_icon(images[i]))
            elif "input" in m:
                item.setText(text + "\n" + ", ".join(f"{v:.2g}" for v in m["input"][:4]))
            item.setToolTip(f"example {m['index']}: true {m['true']} (p = {m['true_probability']:.3f}), predicted "
                            f"{m['predicted']} (p = {m['probability']:.3f})")
            item.setForeground(QColor("#D55E00") if m["probability"] > 0.9 else item.foreground())
            self.addItem(item)
