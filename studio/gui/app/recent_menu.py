"""File > Open recent: the files and folders opened lately (remembered in the settings), filled when the menu
opens; choosing one opens it as File > Open run… would."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import QMenu, QWidget

from studio.gui.app.settings import SettingsStore


class RecentMenu(QMenu):
    """``open_path(path)`` is called with the chosen entry."""

    def __init__(self, prefs: SettingsStore, open_path: Callable[[str], object], parent: QWidget | None = None) -> None:
        super().__init__("Open &recent", parent)
        self.prefs = prefs
        self.open_path = open_path
        self.setToolTipsVisible(True)
        self.aboutToShow.connect(self.fill)

    def fill(self) -> None:
        self.clear()
        files = self.prefs.recent_files()
        for path in files:
            action = self.addAction(Path(path).name or path)
            action.setToolTip(path)
            action.triggered.connect(lambda _checked=False, p=path: self.open_path(p))
        if not files:
            self.addAction("No recent files").setEnabled(False)
        else:
            self.addSeparator()
            self.addAction("Clear the list", self.prefs.clear_recent)
