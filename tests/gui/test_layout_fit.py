"""Every tab and every demo at 1024×768 and 1280×800, light, dark and presentation: no control lies outside
the window or collapses to a stub, no legend leaves its plot or covers the race's contour, and the pictures
are not blank (issue 13)."""

from __future__ import annotations

import pyqtgraph as pg
import pytest
from PySide6.QtCore import QRect
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLineEdit,
    QProgressBar,
    QScrollArea,
    QSlider,
    QWidget,
)

from studio.gui.demos.lab import VIEWS, TeachingLab

SIZES = [(1024, 768), (1280, 800)]
MODES = ["light", "dark", "presentation"]
CONTROLS = (QAbstractButton, QComboBox, QAbstractSpinBox, QLineEdit, QSlider, QProgressBar)


def settle(window: QWidget) -> None:
    for _ in range(4):
        QApplication.processEvents()


def scrolled(widget: QWidget) -> bool:
    """Inside a scroll area: out of view is allowed there (the area scrolls)."""
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QScrollArea):
            return True
        parent = parent.parentWidget()
    return False


def misplaced_controls(window: QWidget) -> list[str]:
    """Visible controls outside the window, or squeezed below a usable size (the 15-px slider stub)."""
    frame = window.rect().adjusted(-1, -1, 1, 1)
    bad = []
    for w in window.findChildren(QWidget):
        if not isinstance(w, CONTROLS) or not w.isVisible() or scrolled(w) or w.window() is not window:
            continue
        rect = QRect(w.mapTo(window, w.rect().topLeft()), w.size())
        if not frame.contains(rect):
            bad.append(f"{type(w).__name__} {w.objectName()!r} {w.text() if hasattr(w, 'text') else ''} at {rect}")
        if isinstance(w, QSlider) and w.width() < 120:
            bad.append(f"slider {w.objectName()!r} is {w.width()} px wide")
    return bad


def stray_legends(window: QWidget) -> list[str]:
    """Legends with entries that reach outside their view (clipped on a side)."""
    bad = []
    for view in window.findChildren(pg.GraphicsView):
        if not view.isVisible() or view.scene() is None:
            continue
        shown = view.mapToScene(view.viewport().rect()).boundingRect().adjusted(-1, -1, 1, 1)
        for item in view.scene().items():
            if isinstance(item, pg.LegendItem) and item.isVisible() and item.items:
                if not shown.contains(item.sceneBoundingRect()):
                    bad.append(f"legend in {view.objectName() or type(view).__name__} at {item.sceneBoundingRect()}")
    return bad


def not_blank(window: QWidget) -> bool:
    image = window.grab().toImage()
    colours = {image.pixel(x, y) for x in range(0, image.width(), 23) for y in range(0, image.height(), 19)}
    return len(colours) >= 8


def set_mode(window, mode: str, size: tuple[int, int]) -> None:
    window.themes.apply("dark" if mode == "dark" else "light", save=False)
    window.presentation.toggle(mode == "presentation")
    window.showNormal()  # full screen of this size: the offscreen screen has its own size
    window.resize(*size)
    settle(window)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_tab_and_demo_fits_the_window(qtbot, window, size):
    problems = []
    for mode in MODES:
        set_mode(window, mode, size)
        assert window.width() <= size[0] and window.height() <= size[1], f"{mode}: window {window.size()}"
        for i in range(window.tabs.count()):
            window.tabs.setCurrentIndex(i)
            settle(window)
            tab = window.tabs.widget(i)
            where = f"{mode} {window.tabs.tabText(i)}"
            problems += [f"{where}: {p}" for p in misplaced_controls(window) + stray_legends(window)]
            if not not_blank(window):
                problems.append(f"{where}: blank picture")
            if isinstance(tab, TeachingLab):
                for name in VIEWS:
                    tab.open(name)
                    settle(window)
                    problems += [f"{where} {name}: {p}" for p in misplaced_controls(window) + stray_legends(window)]
    window.presentation.toggle(False)
    assert problems == []


def test_race_key_stays_outside_the_contour_at_1024x768(qtbot, window):
    lab = window.pages.tab("Teaching lab")
    window.tabs.setCurrentWidget(lab)
    view = lab.open("optimizer_race")
    try:
        view.set_params({"steps": 60})
        view.compute()
        qtbot.waitUntil(lambda: not view.busy, timeout=120_000)
        assert view.task.state == "finished", view.error_text
        for mode in ("light", "presentation"):
            set_mode(window, mode, (1024, 768))
            view.player.seek(40)
            settle(window)
            contour = view.map.getViewBox().sceneBoundingRect()
            key = view.key.sceneBoundingRect()
            assert len(view.key.items) == len(view.path_items) >= 4  # a swatch and a name per racer
            assert not key.intersects(contour), (mode, key, contour)
            assert stray_legends(window) == [] and misplaced_controls(window) == []
            assert view.map.getViewBox().state["aspectLocked"]  # ellipses stay ellipses
        window.presentation.toggle(False)
    finally:
        view.stop()


def test_the_first_window_fits_a_small_screen(qtbot, monkeypatch):
    """A 1024×768 projector: the window opens inside the screen's free area, not at 1280×800 past its edge."""
    from PySide6.QtCore import QRect
    from PySide6.QtGui import QGuiApplication

    from studio.gui.app import main_window

    screen = QGuiApplication.primaryScreen()
    monkeypatch.setattr(type(screen), "availableGeometry", lambda self: QRect(0, 0, 1024, 740))
    size = main_window.default_size()
    assert (size.width(), size.height()) == (1024, 740)
    monkeypatch.setattr(type(screen), "availableGeometry", lambda self: QRect(0, 0, 1920, 1050))
    size = main_window.default_size()
    assert (size.width(), size.height()) == (1280, 800)
