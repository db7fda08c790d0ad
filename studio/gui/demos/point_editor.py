"""Your own points in the playground's picture: while "Draw points" is on, a click adds a point of the orange class,
Shift+click one of the blue class, dragging a point moves it and a right-click removes it; Clear, Import CSV… and
Paste CSV are beside. Each edit ends in ``edited(xy, classes)``; the view makes them the ``custom`` point set and
sends them to the running training. The points are read and checked by ``core/demos/points.py``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, QPointF, Qt, Signal
from PySide6.QtWidgets import QApplication, QFileDialog, QHBoxLayout, QLabel, QPushButton, QWidget

from studio.core.demos import points
from studio.core.errors import DataError

NEAR_PX = 10  # a click this close to a point is on the point
HELP = ("Click: an orange point · Shift+click: a blue point · drag a point to move it · right-click a point to "
        "remove it")


class EditablePoints(pg.ScatterPlotItem):
    """The points being edited; a left-button drag that starts on a point moves it (``moved(index, x, y, done)``)."""

    moved = Signal(int, float, float, bool)

    def __init__(self) -> None:
        super().__init__()
        self.editing = False
        self.dragged: int | None = None

    def mouseDragEvent(self, ev: Any) -> None:  # noqa: N802 - pyqtgraph's name
        if not self.editing or ev.button() != Qt.MouseButton.LeftButton:
            ev.ignore()
            return
        if ev.isStart():
            near = self.pointsAt(ev.buttonDownPos())
            if len(near) == 0:
                ev.ignore()
                return
            self.dragged = int(near[0].index())
        elif self.dragged is None:
            ev.ignore()
            return
        ev.accept()
        pos = ev.pos()
        self.moved.emit(self.dragged, float(pos.x()), float(pos.y()), bool(ev.isFinish()))
        if ev.isFinish():
            self.dragged = None


class PointEditor(QObject):
    """Holds your points (``xy`` (n, 2), ``classes`` (n,) 0/1) and turns clicks on ``plot`` into edits."""

    edited = Signal(object, object)  # xy, classes (after every change, a drag once it ends)
    dragging = Signal(object, object)  # xy, classes while a point is being dragged (redraw only)
    refused = Signal(str)  # one sentence: a CSV that could not be read (the points stay as they were)

    def __init__(self, plot: pg.PlotItem, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.plot = plot
        self.xy = np.zeros((0, 2))
        self.classes = np.zeros(0, dtype=np.int64)
        self.item = EditablePoints()
        self.item.setZValue(20)
        self.item.moved.connect(self._moved)
        plot.addItem(self.item)
        plot.scene().sigMouseClicked.connect(self._clicked)
        self.bar = self._make_bar()

    # --- the row of buttons ------------------------------------------------------------------------------------
    def _make_bar(self) -> QWidget:
        bar = QWidget()
        bar.setObjectName("point_editor")
        row = QHBoxLayout(bar)
        row.setContentsMargins(0, 0, 0, 0)
        self.draw_button = QPushButton("Draw points")
        self.draw_button.setObjectName("draw_points")
        self.draw_button.setCheckable(True)
        self.draw_button.setToolTip("Put your own points in the picture: " + HELP)
        self.draw_button.toggled.connect(self.set_editing)
        self.clear_button = QPushButton("Clear")
        self.clear_button.setObjectName("clear_points")
        self.clear_button.setToolTip("Remove every point, to draw your own from scratch")
        self.clear_button.clicked.connect(self.clear)
        self.import_button = QPushButton("Import CSV…")
        self.import_button.setObjectName("import_points")
        self.import_button.setToolTip("Read points from a CSV file: columns x, y and the class (two classes)")
        self.import_button.clicked.connect(self._import)
        self.paste_button = QPushButton("Paste CSV")
        self.paste_button.setObjectName("paste_points")
        self.paste_button.setToolTip("Read points from the clipboard: rows of x, y, class (e.g. copied from a "
                                     "spreadsheet)")
        self.paste_button.clicked.connect(self.paste)
        self.help = QLabel(HELP)
        self.help.setObjectName("point_help")
        self.help.setWordWrap(True)
        self.help.setVisible(False)
        for w in (self.draw_button, self.clear_button, self.import_button, self.paste_button):
            row.addWidget(w)
        row.addWidget(self.help, 1)
        return bar

    # --- the points ----------------------------------------------------------------------------------------------
    def set_points(self, xy: np.ndarray, classes: np.ndarray) -> None:
        """Start from these points (no ``edited``)."""
        self.xy = np.asarray(xy, dtype=float).reshape(-1, 2).copy()
        self.classes = np.asarray(classes, dtype=np.int64).reshape(-1).copy()

    def set_editing(self, on: bool) -> None:
        """Clicks edit the points (the picture neither pans nor zooms meanwhile)."""
        self.item.editing = bool(on)
        self.plot.vb.setMouseEnabled(not on, not on)
        self.plot.setMenuEnabled(not on)
        self.help.setVisible(bool(on))
        if self.draw_button.isChecked() != bool(on):
            self.draw_button.setChecked(bool(on))

    def add(self, x: float, y: float, cls: int) -> None:
        self.xy = np.vstack([self.xy, [[x, y]]])
        self.classes = np.append(self.classes, int(cls))
        self._emit()

    def move(self, index: int, x: float, y: float, done: bool = True) -> None:
        self.xy[index] = (x, y)
        (self.edited if done else self.dragging).emit(self.xy.copy(), self.classes.copy())

    def remove(self, index: int) -> None:
        self.xy = np.delete(self.xy, index, axis=0)
        self.classes = np.delete(self.classes, index)
        self._emit()

    def clear(self) -> None:
        self.xy, self.classes = np.zeros((0, 2)), np.zeros(0, dtype=np.int64)
        self._emit()
        self.set_editing(True)

    def take_csv(self, text: str, name: str) -> bool:
        """Replace the points with those of CSV ``text``; a CSV that cannot be read is ``refused`` in one sentence
        and the points stay as they were."""
        try:
            xy, classes = points.read_csv(text, name)
        except DataError as err:
            self.refused.emit(str(err))
            return False
        self.xy, self.classes = xy, classes
        self._emit()
        return True

    def paste(self) -> bool:
        clipboard = QApplication.clipboard()
        return self.take_csv(clipboard.text() if clipboard is not None else "", "the pasted text")

    def _import(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self.bar, "Points to train on", "",
                                              "CSV files (*.csv *.txt *.tsv);;All files (*)")
        if path:
            self.import_file(path)

    def import_file(self, path: str) -> bool:
        try:
            text = Path(path).read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as err:
            reason = getattr(err, "strerror", None) or "it is not text"
            self.refused.emit(f"Cannot read {Path(path).name}: {reason}.")
            return False
        return self.take_csv(text, Path(path).name)

    def _emit(self) -> None:
        self.edited.emit(self.xy.copy(), self.classes.copy())

    # --- the mouse -------------------------------------------------------------------------------------------
    def nearest(self, view_x: float, view_y: float) -> int | None:
        """The point within NEAR_PX pixels of (view_x, view_y), or None."""
        if not len(self.xy):
            return None
        vb = self.plot.vb
        here = vb.mapViewToScene(QPointF(view_x, view_y))
        scene = [vb.mapViewToScene(QPointF(float(x), float(y))) for x, y in self.xy]
        dist = [(p.x() - here.x()) ** 2 + (p.y() - here.y()) ** 2 for p in scene]
        best = int(np.argmin(dist))
        return best if dist[best] <= NEAR_PX ** 2 else None

    def _clicked(self, ev: Any) -> None:
        if not self.item.editing or ev.double():
            return
        vb = self.plot.vb
        if not vb.sceneBoundingRect().contains(ev.scenePos()):
            return
        at = vb.mapSceneToView(ev.scenePos())
        near = self.nearest(at.x(), at.y())
        if ev.button() == Qt.MouseButton.RightButton and near is not None:
            self.remove(near)
        elif ev.button() == Qt.MouseButton.LeftButton and near is None:
            shift = bool(ev.modifiers() & Qt.KeyboardModifier.ShiftModifier)
            self.add(float(at.x()), float(at.y()), 1 if shift else 0)
        else:
            return
        ev.accept()

    def _moved(self, index: int, x: float, y: float, done: bool) -> None:
        self.move(index, x, y, done)
