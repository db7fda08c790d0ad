"""The mouse wheel scrolls, it does not edit: a combo box, spin box or slider under the pointer ignores the wheel
unless it has the keyboard focus, so the wheel scrolls the panel around it (issue 22: scrolling the settings
changed activation and optimizer silently).

A guarded field gets ``Qt.StrongFocus`` (the wheel no longer gives it focus) and a small event filter of its own:
a wheel event reaching it unfocused is ignored, and QApplication then offers it to the parents (the scroll area).
Click or Tab into a field and the wheel changes it as before.

Why per field, not one filter on the application: a Python filter on QApplication is handed every event of
every object, so PySide wraps thousands of Qt-internal objects from inside the filter, which is a known source of
segfaults (shiboken's lazy type creation re-entered from an event filter; a stale wrapper at a reused address).
So the builders guard what they build: ``param_widget`` each registry field, ``MainWindow`` the window and each tab
when it is built, the Teaching lab each demo, a dialog itself (``guard_tree``). ``tests/gui/test_wheel_guard.py``
builds every tab and demo and fails on any field left unguarded, so a new one cannot be forgotten."""

from __future__ import annotations

from typing import TypeVar

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt
from PySide6.QtWidgets import QAbstractSpinBox, QComboBox, QDial, QSlider, QWidget

GUARDED = (QComboBox, QAbstractSpinBox, QSlider, QDial)  # not QScrollBar: the wheel is what a scroll bar is for
MARK = "wheel_guarded"
W = TypeVar("W", bound=QWidget)  # the dynamic property a guarded field carries


def is_guarded(widget: QObject) -> bool:
    """Whether ``widget`` carries the guard (its value ignores the wheel unless it has focus)."""
    return bool(widget.property(MARK))


class WheelGuard(QObject):
    """The filter each guarded field carries: unfocused, the wheel passes on to the parent."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.Wheel and isinstance(watched, QWidget) and not watched.hasFocus():
            event.ignore()  # QApplication then offers the event to the parent widgets: the scroll area
            return True
        return False


_FILTER: WheelGuard | None = None


def _shared_filter() -> WheelGuard:
    global _FILTER
    if _FILTER is None:
        _FILTER = WheelGuard(QCoreApplication.instance())  # lives as long as the application
    return _FILTER


def guard(widget: W) -> W:
    """Guard one field (a combo box, spin box, slider or dial; anything else is left alone); returns it."""
    if isinstance(widget, GUARDED) and not is_guarded(widget):
        if widget.focusPolicy() == Qt.FocusPolicy.WheelFocus:
            widget.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        widget.installEventFilter(_shared_filter())
        widget.setProperty(MARK, True)
    return widget


def fields_under(root: QWidget) -> list[QWidget]:
    """Every combo box, spin box, slider and dial inside ``root`` (and ``root`` itself if it is one)."""
    found: list[QWidget] = [root] if isinstance(root, GUARDED) else []
    for kind in GUARDED:
        found.extend(root.findChildren(kind))
    return found


def guard_tree(root: QWidget) -> None:
    """Guard every field inside ``root`` (call it when a window, tab, demo or dialog has been built)."""
    for widget in fields_under(root):
        guard(widget)
