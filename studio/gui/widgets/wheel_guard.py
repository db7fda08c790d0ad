"""The mouse wheel scrolls, it does not edit: a combo box, spin box or slider under the pointer ignores the wheel
unless it has the keyboard focus, so the wheel scrolls the panel around it (issue 22: scrolling the settings
changed activation and optimizer silently).

:func:`install` puts one filter on the application, so every field made anywhere (forms built from registries,
tabs, dialogs, fields made later) is guarded without its own code: a guarded field gets ``Qt.StrongFocus`` when
it is polished (the wheel no longer gives it focus), and a wheel event reaching it unfocused is ignored and passed
on to its parent (the scroll area). Click or Tab into a field and the wheel changes it as before."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt
from PySide6.QtWidgets import QAbstractSpinBox, QComboBox, QDial, QSlider, QWidget

GUARDED = (QComboBox, QAbstractSpinBox, QSlider, QDial)  # not QScrollBar: the wheel is what a scroll bar is for


def is_guarded(widget: QObject) -> bool:
    """Whether the wheel must leave ``widget``'s value alone unless it has focus."""
    return isinstance(widget, GUARDED)


class WheelGuard(QObject):
    """An event filter: unfocused fields pass the wheel on; fields get StrongFocus when polished."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        kind = event.type()
        if kind == QEvent.Type.Wheel:
            if isinstance(watched, GUARDED) and not watched.hasFocus():
                event.ignore()  # QApplication then offers the event to the parent widgets: the scroll area
                return True
        elif kind == QEvent.Type.Polish and isinstance(watched, GUARDED):
            guard(watched)
        return False


def guard(widget: QWidget) -> None:
    """Let the wheel not give ``widget`` the focus (the filter then keeps it from changing the value)."""
    if widget.focusPolicy() == Qt.FocusPolicy.WheelFocus:
        widget.setFocusPolicy(Qt.FocusPolicy.StrongFocus)


_GUARDS: dict[int, WheelGuard] = {}


def install(app: QCoreApplication | None = None) -> WheelGuard | None:
    """Guard every field of ``app`` (the running application by default); calling it again changes nothing."""
    app = app or QCoreApplication.instance()
    if app is None:
        return None
    key = id(app)
    if key not in _GUARDS:
        _GUARDS[key] = WheelGuard(app)
        app.installEventFilter(_GUARDS[key])
    return _GUARDS[key]
