"""Help > Documentation (F1) opens the README in a window of Studio's own, so it works where the desktop has no
program for .md files (issue 22); links to the other documentation open in the same window."""

from __future__ import annotations

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices

from studio.gui.app.main_window import documentation_path


def test_f1_shows_the_readme_without_any_md_handler(qtbot, window, monkeypatch):
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: False)  # no program opens .md files here
    window.docs_action.trigger()
    help_window = window.help_window
    qtbot.waitUntil(help_window.isVisible)
    text = help_window.browser.toPlainText()
    assert text.startswith("Studio") and "Set-up" in text and "```" not in text  # rendered, not raw Markdown
    assert window.last_error is None
    window.docs_action.trigger()  # F1 again: the same window, brought to the front
    assert window.help_window is help_window

    docs = documentation_path().parent / "docs" / "clusters.md"
    help_window.browser.setSource(QUrl.fromLocalFile(str(docs)))  # as a click on a link to docs/clusters.md
    assert help_window.browser.source().toLocalFile().endswith("clusters.md") and help_window.back_button.isEnabled()
    help_window.back_button.click()
    assert help_window.browser.source().toLocalFile().endswith("README.md")


def test_a_missing_readme_is_said_in_words(window, monkeypatch, tmp_path):
    from studio.gui.app import main_window as mw

    monkeypatch.setattr(mw, "documentation_path", lambda: tmp_path / "README.md")
    assert window.open_documentation() is False
    assert window.last_error is not None and "not installed" in window.last_error[1]
