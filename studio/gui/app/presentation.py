"""Presentation mode (F11): full screen, large fonts and thick lines, for a projector. The class sees the plots:
the settings, run list, menus and toolbar go; Train, Stop and a way out stay in a corner beside the navigation.
Also where the training settings show: beside the pages that use them, never in presentation mode."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QHBoxLayout, QMainWindow, QToolBar, QToolButton, QWidget

from studio.gui.app.curves_pane import CurvesPane
from studio.gui.app.pages import Pages


class Presentation(QObject):
    """``on``: presentation mode is on. :meth:`toggle` switches it; :meth:`fit_settings` shows the settings panel
    beside a page that uses it. ``corner`` (Train, Stop, Exit presentation) is for the window to place."""

    def __init__(self, window: QMainWindow, pages: Pages, settings: QWidget, run_list: QWidget,
                 curves: CurvesPane, action: QAction, corner_actions: tuple[QAction, ...]) -> None:
        super().__init__(window)
        self.window, self.pages, self.settings, self.run_list, self.curves = window, pages, settings, run_list, curves
        self.action = action
        self.on = False
        self._normal_state: Qt.WindowState | None = None
        self.corner = QWidget()
        row = QHBoxLayout(self.corner)
        row.setContentsMargins(0, 0, 4, 0)
        for corner_action in corner_actions:
            button = QToolButton()
            button.setDefaultAction(corner_action)
            row.addWidget(button)
        leave = QToolButton()
        leave.setText("Exit presentation (F11)")
        leave.setToolTip("Back to the normal window with its settings, menus and run list")
        leave.clicked.connect(lambda: self.toggle(False))
        row.addWidget(leave)
        self.corner.setVisible(False)
        pages.changed.connect(self.fit_settings)
        pages.built.connect(self._follow)

    def toggle(self, on: bool | None = None) -> None:
        """Switch presentation mode (``None``: the other way); every view that has ``set_presentation`` follows."""
        on = (not self.on) if on is None else bool(on)
        self.on = on
        self.action.setChecked(on)
        if on:
            self._normal_state = self.window.windowState()
            self.window.showFullScreen()
        else:
            self.window.showNormal()
            if self._normal_state is not None and self._normal_state & Qt.WindowState.WindowMaximized:
                self.window.showMaximized()
        self.window.menuBar().setVisible(not on)
        for bar in self.window.findChildren(QToolBar):
            bar.setVisible(not on)
        self.run_list.setVisible(not on)
        self.corner.setVisible(on)
        self.fit_settings()
        for widget in self.widgets():
            widget.set_presentation(on)

    def fit_settings(self) -> None:
        """The training settings show beside the pages that use them (not in presentation mode, nor beside a page
        with settings of its own, such as the Teaching lab: its plots get the width)."""
        current = self.pages.tabs.currentWidget()
        self.settings.setVisible(not self.on and getattr(current, "uses_settings_panel", True))

    def widgets(self) -> list[Any]:
        """The views that follow presentation mode: the curves (once built) and every built page that can."""
        candidates = ([self.curves.view] if self.curves.view is not None else []) + self.pages.widgets()
        seen, out = set(), []
        for w in candidates:
            if callable(getattr(w, "set_presentation", None)) and id(w) not in seen:
                seen.add(id(w))
                out.append(w)
        return out

    def _follow(self, page: Any) -> None:
        """A page built while presentation mode is on starts in it."""
        follow = getattr(page, "set_presentation", None) if self.on else None
        if callable(follow):
            follow(True)
