"""Predict with a finished run: drop images, a folder or a CSV file (or paste one CSV row) and see the
top-k classes with their probabilities. The work runs in a background job (``engine/tasks/predict.py``)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)


class DropZone(QLabel):
    """A framed area that takes dropped files and folders (and keeps them from the window's data import)."""

    dropped = Signal(object)  # list of paths

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setAcceptDrops(True)
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setWordWrap(True)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setFrameShadow(QFrame.Shadow.Sunken)
        self.setMinimumHeight(64)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 - Qt's name
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dragMoveEvent(self, event: Any) -> None:  # noqa: N802
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802
        paths = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if paths:
            event.acceptProposedAction()
            self.dropped.emit(paths)


class PredictPanel(QWidget):
    """Inputs in (drop, choose or paste), predictions out; ``requested(paths, top_k)`` asks the tab to run them."""

    requested = Signal(object, int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.drop = DropZone("Drop images, a folder of images or a CSV file here\n(same preprocessing as training)")
        self.drop.dropped.connect(self.predict_paths)
        self.choose = QPushButton("Choose files…")
        self.choose.setToolTip("Pick image or CSV files to classify")
        self.choose.clicked.connect(self._choose)
        self.top_k = QSpinBox()
        self.top_k.setRange(1, 100)
        self.top_k.setValue(3)
        self.top_k.setPrefix("top ")
        self.top_k.setToolTip("How many classes to show per input")
        self.row = QLineEdit()
        self.row.setPlaceholderText("or paste one CSV row of pixel values (e.g. 784 numbers for 28×28) and press Enter")
        self.row.returnPressed.connect(self._predict_row)
        self.row.setToolTip("One example as comma-separated values (one per input value, e.g. 784 pixel values "
                            "0–255 for 28×28 grey; an extra first value is taken as a label); Enter classifies it")
        self.table = QTableWidget(0, 3)
        self.table.setHorizontalHeaderLabels(["input", "prediction", "top classes"])
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setToolTip("Each input's most probable class and its top classes with their probabilities")
        self.status = QLabel("")
        self.status.setWordWrap(True)
        self._tmp = tempfile.TemporaryDirectory(prefix="studio-predict-")
        bar = QHBoxLayout()
        bar.addWidget(self.choose)
        bar.addWidget(self.top_k)
        bar.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.drop)
        layout.addLayout(bar)
        layout.addWidget(self.row)
        layout.addWidget(self.status)
        layout.addWidget(self.table, 1)

    def predict_paths(self, paths: list[str]) -> None:
        self.requested.emit(list(paths), self.top_k.value())

    def _choose(self) -> None:
        files, _ = QFileDialog.getOpenFileNames(self, "Files to classify", "",
                                                "Images or CSV (*.png *.jpg *.jpeg *.bmp *.gif *.tif *.tiff *.webp "
                                                "*.pgm *.ppm *.csv);;All files (*)")
        if files:
            self.predict_paths(files)

    def _predict_row(self) -> None:
        text = self.row.text().strip()
        if not text:
            return
        path = Path(self._tmp.name) / "pasted row.csv"
        path.write_text(text + "\n", encoding="utf-8")
        self.predict_paths([str(path)])

    def show_predictions(self, result: dict[str, Any]) -> None:
        rows = result["predictions"]
        self.table.setRowCount(len(rows))
        for r, p in enumerate(rows):
            name = Path(p["input"]).name if "/" in p["input"] else p["input"]
            item = QTableWidgetItem(name)
            item.setToolTip(p["input"])
            self.table.setItem(r, 0, item)
            self.table.setItem(r, 1, QTableWidgetItem(f"{p['predicted']}  {p['probability']:.3f}"))
            self.table.setItem(r, 2, QTableWidgetItem(", ".join(f"{t['class']} {t['probability']:.3f}"
                                                                for t in p["top"])))
        self.table.resizeColumnToContents(0)
        self.table.resizeColumnToContents(1)
        self.status.setText(f"{len(rows)} input(s) classified by {result['run_id']} ({result['checkpoint']}) in "
                            f"{result['seconds']:.1f} s.")
