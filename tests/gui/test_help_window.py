"""Help > Documentation (F1) opens the README in a window of Studio's own, so it works where the desktop has no
program for .md files (issue 22); links to the other documentation open in the same window."""

from __future__ import annotations

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices

from studio.gui.app import commands
from studio.gui.app.commands import documentation_path


def test_f1_shows_the_readme_without_any_md_handler(qtbot, window, monkeypatch):
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: False)  # no program opens .md files here
    window.docs_action.trigger()
    help_window = window.shell.help_window
    qtbot.waitUntil(help_window.isVisible)
    text = help_window.browser.toPlainText()
    assert text.startswith("Studio") and "Set-up" in text and "```" not in text  # rendered, not raw Markdown
    assert window.status.last_error is None
    window.docs_action.trigger()  # F1 again: the same window, brought to the front
    assert window.shell.help_window is help_window

    docs = documentation_path().parent / "docs" / "clusters.md"
    help_window.browser.setSource(QUrl.fromLocalFile(str(docs)))  # as a click on a link to docs/clusters.md
    assert help_window.browser.source().toLocalFile().endswith("clusters.md") and help_window.back_button.isEnabled()
    help_window.back_button.click()
    assert help_window.browser.source().toLocalFile().endswith("README.md")


def test_a_missing_readme_is_said_in_words(window, monkeypatch, tmp_path):
    monkeypatch.setattr(commands, "documentation_path", lambda: tmp_path / "README.md")
    assert commands.open_documentation(window.shell) is False
    assert window.status.last_error is not None and "not installed" in window.status.last_error[1]
