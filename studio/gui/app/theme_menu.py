"""View > Theme: follow the system, light or dark. Applying one restyles the window, every plot and the views that
style some plots their own way (``theme_changed``: the Teaching lab), and is remembered."""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QMainWindow, QMenu

from studio.gui.app.curves_pane import CurvesPane
from studio.gui.app.pages import Pages
from studio.gui.app.settings import SettingsStore
from studio.gui.panels.run_list import RunList
from studio.gui.session import theme

THEME_LABELS = {"system": "Follow the system", "light": "Light", "dark": "Dark"}


class ThemeMenu(QObject):
    """The theme's checkable actions in ``menu`` (``actions`` by name) and the theme in effect (``name``)."""

    def __init__(self, window: QMainWindow, menu: QMenu, prefs: SettingsStore, pages: Pages, curves: CurvesPane,
                 run_list: RunList) -> None:
        super().__init__(window)
        self.window, self.prefs, self.pages, self.curves, self.run_list = window, prefs, pages, curves, run_list
        self.name = prefs.theme
        self.group = QActionGroup(self)
        self.actions: dict[str, QAction] = {}
        for name, label in THEME_LABELS.items():
            action = QAction(label, window, checkable=True)
            action.setToolTip(f"{label} colours" if name != "system" else "Light or dark, as the desktop is")
            action.triggered.connect(lambda _checked=False, n=name: self.apply(n))
            self.group.addAction(action)
            menu.addAction(action)
            self.actions[name] = action

    def apply(self, name: str, save: bool = True, others: bool = True) -> str:
        """``"system"``, ``"light"`` or ``"dark"``: restyles the window and every plot; remembered. ``others=False``
        (the window being built): leaves the other top-level windows alone — walking the plots of windows that are
        being torn down crashed in Qt (a segfault in theme.apply seen in CI). Returns light or dark."""
        applied = theme.apply(name, restyle_windows=others)  # to the running QApplication
        theme.restyle_plots(self.window, applied)
        for page in self.pages.widgets():  # pages that style some plots their own way (the Teaching lab)
            hook = getattr(page, "theme_changed", None)
            if hook is not None:
                hook()
        if self.curves.view is not None:
            self.curves.view.restyle_key()
            self.run_list.set_colours(self.curves.view.colours())
        self.actions[name].setChecked(True)
        self.name = name
        if save:
            self.prefs.theme = name
        return applied

    def follow_system(self, *_args: object) -> None:
        """The desktop switched light/dark: follow it when the theme is "Follow the system"."""
        if self.name == "system":
            self.apply("system", save=False)

