"""Your own points in the playground, with real mouse events on the picture: click adds an orange point,
Shift+click a blue one, a drag moves a point, a right-click removes it, Clear empties; a CSV or pasted text with
bad values is refused in one sentence and the points stay; a running training follows the edits."""

from __future__ import annotations

import multiprocessing

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QGuiApplication, QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from studio.core.runs.store import RunStore
from studio.engine.jobs import backend
from studio.gui.demos.playground_view import PlaygroundView
from tests.gui.conftest import new_session


@pytest.fixture
def session(qtbot):
    s = new_session(RunStore())
    yield s
    s.shutdown(wait_s=5)
    assert multiprocessing.active_children() == []


@pytest.fixture
def view(qtbot, session):
    v = PlaygroundView(session)
    v.resize(1280, 800)
    qtbot.addWidget(v)
    v.show()
    qtbot.waitExposed(v)
    return v


def widget_point(view: PlaygroundView, x: float, y: float) -> QPoint:
    """Where the picture's point (x, y) is on the plot widget's viewport."""
    scene = view.map.vb.mapViewToScene(QPointF(x, y))
    return view.graphics.mapFromScene(scene)


def click(view, x, y, button=Qt.MouseButton.LeftButton, shift=False) -> None:
    modifier = Qt.KeyboardModifier.ShiftModifier if shift else Qt.KeyboardModifier.NoModifier
    QTest.mouseClick(view.graphics.viewport(), button, modifier, widget_point(view, x, y))


def drag(view, start, end) -> None:
    """Press, move in steps with the button held (QTest's move carries no buttons), release."""
    port = view.graphics.viewport()
    a, b = widget_point(view, *start), widget_point(view, *end)
    left, none = Qt.MouseButton.LeftButton, Qt.MouseButton.NoButton

    def send(kind, at, button, buttons):
        event = QMouseEvent(kind, QPointF(at), QPointF(port.mapToGlobal(at)), button, buttons,
                            Qt.KeyboardModifier.NoModifier)
        QApplication.sendEvent(port, event)

    send(QEvent.Type.MouseButtonPress, a, left, left)
    for t in np.linspace(0.1, 1.0, 8):
        send(QEvent.Type.MouseMove, QPoint(round(a.x() + (b.x() - a.x()) * t), round(a.y() + (b.y() - a.y()) * t)),
             none, left)
    send(QEvent.Type.MouseButtonRelease, b, left, none)


def own(view) -> tuple[np.ndarray, np.ndarray]:
    """The points setting as (xy, classes), even with one class (which ``parse_points`` refuses)."""
    rows = [r.split(",") for r in view.params["points"].split(";") if r]
    values = np.array(rows, dtype=float).reshape(-1, 3)
    return values[:, :2], values[:, 2].astype(int)


def test_drawing_starts_from_the_points_shown_then_clear_click_shift_drag_and_remove(view):
    assert view.setup is not None  # the shipped recording's spiral
    shown = len(view.setup["y_train"]) + len(view.setup["y_test"])
    view.editor.draw_button.click()
    assert view.params["dataset"] == "custom" and len(own(view)[1]) == shown
    view.editor.clear_button.click()
    assert view.params["points"] == "" and "Draw points in the picture" in view.status.text()
    view.map.setRange(xRange=(-2, 2), yRange=(-2, 2), padding=0)
    click(view, -1.0, -1.0)
    assert "other class" in view.status.text()
    click(view, 1.0, 1.0, shift=True)
    xy, classes = own(view)
    np.testing.assert_allclose(xy, [[-1, -1], [1, 1]], atol=0.05)
    assert list(classes) == [0, 1]
    drag(view, (1.0, 1.0), (0.5, -1.5))
    xy, _ = own(view)
    np.testing.assert_allclose(xy[1], [0.5, -1.5], atol=0.05)
    click(view, 0.5, -1.5, button=Qt.MouseButton.RightButton)
    xy, classes = own(view)
    assert len(xy) == 1 and list(classes) == [0]
    assert sum(len(item.getData()[0]) for item in view.data_items()[:1]) == 1  # drawn as you edit


def test_a_bad_csv_or_paste_is_refused_and_the_points_stay(view, tmp_path):
    good = tmp_path / "good.csv"
    good.write_text("x,y,class\n0,0,a\n1,1,b\n0,1,a\n1,0,b\n")
    assert view.editor.import_file(str(good))
    before = view.params["points"]
    bad = tmp_path / "bad.csv"
    bad.write_text("x,y,class\n0,0,a\n1,oops,b\n")
    assert not view.editor.import_file(str(bad))
    assert view.status.text() == "bad.csv, point 2: 'oops' is not a number (x and y are numbers)"
    QGuiApplication.clipboard().setText("1,2,0\n3,4,0\n")
    assert not view.editor.paste()
    assert "only one class" in view.status.text() and view.params["points"] == before


@pytest.fixture
def warm():
    backend.start_warm()
    yield
    backend.stop_warm()


def test_the_live_training_follows_your_points(qtbot, view, warm):
    view.editor.take_csv("0,0,0\n1,1,0\n0,1,1\n1,0,1\n", "xor.csv")
    view.compute()
    qtbot.waitUntil(lambda: view.frame_count() >= 2, timeout=120_000)
    view.map.setRange(xRange=(-1, 2), yRange=(-1, 2), padding=0)
    view.editor.set_editing(True)
    click(view, 1.5, 1.5, shift=True)
    qtbot.waitUntil(lambda: "your 5 points" in view.status.text(), timeout=60_000)
    assert view.busy and len(view.setup["y_train"]) + len(view.setup["y_test"]) == 5
    view.stop()
    qtbot.waitUntil(lambda: not view.busy, timeout=30_000)
