"""Help > Documentation: the README in a window of Studio's own (a QTextBrowser renders the Markdown), so F1 works
where the desktop has no program for ``.md`` files (issue 22). Links to other ``.md`` files of the documentation
open in the same window (Back returns); web links open in the browser."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSize, Qt, QUrl
from PySide6.QtGui import QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import QDialog, QHBoxLayout, QLabel, QPushButton, QTextBrowser, QVBoxLayout, QWidget


class HelpWindow(QDialog):
    """A non-modal window that shows one Markdown file and the documentation it links to."""

    def __init__(self, path: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Studio documentation")
        self.setModal(False)
        self.browser = QTextBrowser(self)
        self.browser.setOpenExternalLinks(True)  # http(s): the browser; local .md files: this window
        self.browser.setSearchPaths([str(path.parent)])
        self.back_button = QPushButton("Back", self)
        self.back_button.setEnabled(False)
        self.back_button.clicked.connect(self.browser.backward)
        self.browser.backwardAvailable.connect(self.back_button.setEnabled)
        self.where = QLabel(self)
        self.where.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.browser.sourceChanged.connect(lambda url: self.where.setText(url.toLocalFile() or url.toString()))
        close = QPushButton("Close", self)
        close.clicked.connect(self.close)
        top = QHBoxLayout()
        top.addWidget(self.back_button)
        top.addWidget(self.where, 1)
        top.addWidget(close)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.browser, 1)
        QShortcut(QKeySequence(QKeySequence.StandardKey.Back), self, self.browser.backward)
        self.show_file(path)

    def show_file(self, path: Path) -> None:
        """Show ``path`` (Markdown, by its .md suffix)."""
        self.browser.setSource(QUrl.fromLocalFile(str(path.resolve())))

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        """Wide enough for the README's code blocks, never larger than the screen's free area."""
        size = QSize(900, 700)
        screen = QGuiApplication.primaryScreen()
        return size.boundedTo(screen.availableGeometry().size() * 0.9) if screen is not None else size


def show_help(parent: QWidget, path: Path, window: HelpWindow | None = None) -> HelpWindow:
    """Show the documentation window (the one already open, brought to the front, or a new one)."""
    if window is None:
        window = HelpWindow(path, parent)
        window.resize(window.sizeHint())
    window.show()
    window.raise_()
    window.activateWindow()
    return window
