"""Messages start with a capital letter, but a file name never changes its case (issue 22: "Bad.png" for bad.png)."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QMessageBox

from studio.gui.session.messages import sentence


@pytest.mark.parametrize(("text", "shown"), [
    ("bad.png: not an image Studio can read", "bad.png: not an image Studio can read"),
    ("photos_2024: no images in the folder", "photos_2024: no images in the folder"),
    ("stopping: saving a checkpoint…", "Stopping: saving a checkpoint…"),  # a word of letters alone is a word
    ("~/data/x.csv is empty", "~/data/x.csv is empty"),
    ("run_1 finished", "run_1 finished"),
    ("importing emptydir…", "Importing emptydir…"),
    ("the run failed: bad.png", "The run failed: bad.png"),
    ("don't close the window", "Don't close the window"),
    ("", ""),
])
def test_sentence_capitalises_words_but_not_names(text, shown):
    assert sentence(text) == shown


def test_the_error_dialog_and_the_status_bar_keep_a_file_names_case(qtbot, window):
    window.status.show_error("Cannot classify", "bad.png: not an image Studio can read")
    box = [w for w in window.findChildren(QMessageBox) if w.isVisible()][-1]
    assert box.text() == "bad.png: not an image Studio can read"
    window.status.show_message("notes.txt: 3 lines skipped")
    assert window.status.message.text() == "notes.txt: 3 lines skipped"
    window.status.show_message("imported 12 images")
    assert window.status.message.text() == "Imported 12 images"
