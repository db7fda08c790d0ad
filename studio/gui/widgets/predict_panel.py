"""Predict with a finished run: drop images, a folder or a CSV file (or paste one CSV row, or draw a digit when
the run was trained on 28×28 grey images: ``widgets/digit_pad.py``) and see the top-k classes with their
probabilities. The work runs in a background job (``engine/tasks/predict.py``).
Below the table, "Layer activations" shows every layer's output for the selected image (``engine/tasks/
activations.py``, drawn by ``widgets/activations_view.py``)."""

from __future__ import annotations

import csv
import re
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
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from studio.gui.session import theme
from studio.gui.widgets.activations_view import ActivationsView
from studio.gui.widgets.digit_pad import DigitPad

PASTED = "pasted row.csv"  # the file a pasted row is classified from (the table names its row after it)


def not_a_number(row: str) -> str | None:
    """The first value of a pasted CSV row that is not a number (None: all are)."""
    for cell in next(csv.reader([row]), []):
        try:
            float(cell)
        except ValueError:
            return cell.strip()
    return None



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
    activations_requested = Signal(str)  # the path of one image whose layer activations to show

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
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        self.pasted = False  # the last request was a pasted row
        self._tmp = tempfile.TemporaryDirectory(prefix="studio-predict-")
        bar = QHBoxLayout()
        bar.addWidget(self.choose)
        bar.addWidget(self.top_k)
        bar.addStretch(1)
        self.activations_button = QPushButton("Show layer activations")
        self.activations_button.setToolTip("Run the selected image through the model and show every layer's output "
                                           "(feature maps of convolutions, units of linear layers)")
        self.activations_button.setEnabled(False)
        self.activations_button.clicked.connect(self._request_activations)
        self.table.itemSelectionChanged.connect(self._selection_changed)
        self.activations = ActivationsView()
        section = QWidget()
        section_layout = QVBoxLayout(section)
        section_layout.setContentsMargins(0, 0, 0, 0)
        heading = QHBoxLayout()
        heading.addWidget(QLabel("<b>Layer activations</b>"))
        heading.addStretch(1)
        heading.addWidget(self.activations_button)
        section_layout.addLayout(heading)
        section_layout.addWidget(self.activations, 1)
        self.split = QSplitter(Qt.Orientation.Vertical)
        self.split.addWidget(self.table)
        self.split.addWidget(section)
        self.split.setStretchFactor(0, 1)
        self.split.setStretchFactor(1, 3)
        self.split.setSizes([120, 480])  # a few rows of predictions, most room for the activations
        self.pad = DigitPad()
        self.pad.drawn.connect(self.predict_drawing)
        self.clear_pad = QPushButton("Clear")
        self.clear_pad.setObjectName("clear_digit")
        self.clear_pad.setToolTip("Empty the pad")
        self.clear_pad.clicked.connect(self.pad.clear)
        self.drawings = 0  # drawings classified so far (each is its own row: "drawing 3")
        self.pad_box = QWidget()
        pad_column = QVBoxLayout(self.pad_box)
        pad_column.setContentsMargins(0, 0, 0, 0)
        pad_column.addWidget(QLabel("<b>Draw a digit</b>"))
        pad_column.addWidget(self.pad, 1)
        pad_column.addWidget(self.clear_pad)
        self.pad_box.setVisible(False)
        inputs = QVBoxLayout()
        inputs.addWidget(self.drop, 1)
        inputs.addLayout(bar)
        inputs.addWidget(self.row)
        top = QHBoxLayout()
        top.addLayout(inputs, 1)
        top.addWidget(self.pad_box)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.status)
        layout.addWidget(self.split, 1)

    def _choose(self) -> None:
        files, _ = QFileDialog.getOpenFileNames(self, "Files to classify", "",
                                                "Images or CSV (*.png *.jpg *.jpeg *.bmp *.gif *.tif *.tiff *.webp "
                                                "*.pgm *.ppm *.csv);;All files (*)")
        if files:
            self.predict_paths(files)

    def _predict_row(self) -> None:
        """Classify the pasted row; a row that is not numbers is refused here in one sentence (nothing starts,
        the last predictions stay)."""
        text = self.row.text().strip()
        if not text:
            return
        wrong = not_a_number(text)
        if wrong is not None:
            self.show_line(f"The pasted row holds {wrong!r}, which is not a number: paste the input's values "
                           "separated by commas (e.g. 784 pixel values for a 28×28 image).", error=True)
            return
        path = Path(self._tmp.name) / PASTED
        path.write_text(text + "\n", encoding="utf-8")
        self.pasted = True
        self.show_line("")
        self.requested.emit([str(path)], self.top_k.value())

    def set_drawing(self, on: bool) -> None:
        """Offer the digit pad (a run trained on 28×28 grey images) or hide it."""
        self.pad_box.setVisible(on)

    def predict_drawing(self) -> None:
        """Classify what the pad holds, as a 28×28 grey PNG prepared as MNIST's digits are."""
        if self.pad.is_empty():
            return
        from PIL import Image

        self.drawings += 1
        path = Path(self._tmp.name) / f"drawing {self.drawings}.png"
        Image.fromarray(self.pad.picture(), "L").save(path)
        self.predict_paths([str(path)])

    def predict_paths(self, paths: list[str]) -> None:
        self.pasted = False
        self.show_line("")
        self.requested.emit(list(paths), self.top_k.value())

    def show_line(self, text: str, error: bool = False) -> None:
        """The Predict page's own status line (``error``: in the theme's error colour)."""
        self.status.setText(text)
        self.status.setStyleSheet(theme.error_style() if error else "")

    def show_failure(self, message: str) -> str | None:
        """The prediction failed with ``message``: say so on the page's line. A pasted row's reason is said there,
        in the page's words, and the predictions shown before stay (None: nothing more to say). Files: the table
        is emptied (nothing was classified) and ``message`` is returned for the message box."""
        if self.pasted:  # "pasted row.csv: row 1 has 3 values; …" → "… not classified: it has 3 values; …"
            reason = re.sub(rf"^{re.escape(PASTED)}: row \d+ ", "it ", message.strip().split("\n")[0])
            reason = reason.replace(PASTED, "the pasted row").rstrip(". :")
            self.show_line(f"The pasted row was not classified: {reason or 'the prediction failed'}.", error=True)
            return None
        self.table.setRowCount(0)  # no stale table under a failure: nothing was classified
        self.show_line("⚠ Nothing classified: the prediction failed (the message box says why).")
        return message

    def show_predictions(self, result: dict[str, Any]) -> None:
        rows = result["predictions"]
        self.table.setRowCount(len(rows))
        for r, p in enumerate(rows):
            name = Path(p["input"]).name if "/" in p["input"] else p["input"]
            if name.startswith(f"{PASTED}:"):
                name = "pasted row"  # not the temporary file it was classified from
            item = QTableWidgetItem(name)
            item.setToolTip(p["input"])
            self.table.setItem(r, 0, item)
            self.table.setItem(r, 1, QTableWidgetItem(f"{p['predicted']}  {p['probability']:.3f}"))
            self.table.setItem(r, 2, QTableWidgetItem(", ".join(f"{t['class']} {t['probability']:.3f}"
                                                                for t in p["top"])))
        self.table.resizeColumnToContents(0)
        self.table.resizeColumnToContents(1)
        if rows:
            self.table.selectRow(0)  # ready for "Show layer activations"
        self.status.setText(f"{len(rows)} input(s) classified by {result['run_id']} ({result['checkpoint']}) in "
                            f"{result['seconds']:.1f} s.")

    # --- layer activations (DIGITS) --------------------------------------------------------------
    def selected_image(self) -> str | None:
        """The full path of the selected row's input when it is an image file (CSV rows have none)."""
        from studio.core.datasets.importers.images import is_image_name

        rows = {i.row() for i in self.table.selectedIndexes()}
        item = self.table.item(min(rows), 0) if rows else None
        path = item.toolTip() if item is not None else ""
        return path if path and is_image_name(Path(path).name) and Path(path).is_file() else None

    def _selection_changed(self) -> None:
        self.activations_button.setEnabled(self.selected_image() is not None)

    def _request_activations(self) -> None:
        path = self.selected_image()
        if path:
            self.activations.clear_layers(f"Computing the layer activations of {Path(path).name}…", pending=True)
            self.activations_requested.emit(path)

    def show_activations(self, result: dict[str, Any]) -> None:
        """Draw an ``ActivationsResult``."""
        self.activations.show_result(result)
