"""Status messages: each said once in its one place, capitalised, the ETA sensible while paused and never
clipped, and skipped files named behind Details…."""

import time
from types import SimpleNamespace

from PySide6.QtWidgets import QMessageBox

from studio.gui import main_window
from studio.gui.data_import import skipped_details
from studio.gui.messages import count, format_duration


def open_error_boxes(window):
    return [b for b in window.findChildren(QMessageBox) if b.isVisible() and b.icon() == QMessageBox.Icon.Warning]


def test_an_error_is_shown_once_and_cleared_by_the_next_success(qtbot, window):
    window.show_message("Ready")
    window.show_error("Import failed", "the archive is empty")
    boxes = open_error_boxes(window)
    assert len(boxes) == 1 and boxes[0].text() == "The archive is empty"
    assert "archive" not in window.status_label.text()  # the dialog is its one place, not also the status bar
    window.clear_errors()  # what a finished run or an import that worked does
    qtbot.waitUntil(lambda: not open_error_boxes(window), timeout=2000)
    assert window.last_error is None


def test_messages_start_with_a_capital(window):
    window.show_message("stopping: saving a checkpoint…")
    assert window.status_label.text() == "Stopping: saving a checkpoint…"
    assert not window.details_button.isVisibleTo(window)


def test_eta_says_paused_and_restarts_its_rate(window, monkeypatch):
    progress = {"step": 10, "total_steps": 100, "epoch": 1, "epochs": 5}
    window.session.state = "running"
    clock = iter([100.0, 110.0, 500.0, 510.0])
    fake_time = SimpleNamespace(monotonic=lambda: next(clock), perf_counter=time.perf_counter)
    monkeypatch.setattr(main_window, "time", fake_time)  # this module's clock only, not Qt's threads'
    window._on_progress("r1", progress)
    window._on_progress("r1", {**progress, "step": 20})
    assert window.eta_label.text().endswith("ETA 1 min 20 s")  # 10 steps in 10 s, 80 to go
    window.session.state = "paused"
    window._on_state("paused")
    assert window.eta_label.text() == "Epoch 1/5 · step 20/100 · paused"
    window._on_progress("r1", {**progress, "step": 20})  # a batch in flight when it paused: no clock read
    assert window.eta_label.text().endswith("paused")
    window.session.state = "running"  # resumed 390 s later: the pause does not count as slow training
    window._on_state("running")
    window._on_progress("r1", {**progress, "step": 20})
    window._on_progress("r1", {**progress, "step": 30})
    assert window.eta_label.text().endswith("ETA 1 min 10 s")


def test_eta_is_never_clipped_by_a_long_message(qtbot, window):
    window.resize(1024, 768)
    window.session.state = "running"
    window._on_progress("r1", {"step": 1, "total_steps": 10_000, "epoch": 1, "epochs": 50})
    window.show_message("A very long message about something that happened " * 6)
    qtbot.wait(50)
    assert window.eta_label.width() >= window.eta_label.sizeHint().width()
    assert window.eta_label.geometry().right() <= window.statusBar().width()
    shown = window.status_label.shown_text()
    assert shown.endswith("…") and len(shown) < len(window.status_label.text())  # the message gives way
    assert window.status_label.toolTip() == window.status_label.text()


def test_skipped_files_are_counted_right_and_listed():
    assert count(1, "file") == "1 file" and count(2, "file") == "2 files"
    assert format_duration(42) == "42 s" and format_duration(3 * 3600 + 7 * 60) == "3 h 07 min"
    report = {"skipped": 7, "skipped_examples": ["a.png: not an image", "b.png: truncated"]}
    assert skipped_details(report) == "7 files skipped:\na.png: not an image\nb.png: truncated\n… and 5 more"
    assert skipped_details({"skipped": 0}) == ""


def test_details_button_shows_the_list(qtbot, window):
    window.show_message("dataset pets: 24 images; 1 file skipped", "1 file skipped:\nx.png: truncated")
    assert window.status_label.text().startswith("Dataset pets")
    assert window.details_button.isVisibleTo(window) and "x.png" in window.details_button.toolTip()
    window.details_button.click()
    shown = [b for b in window.findChildren(QMessageBox) if b.isVisible() and "x.png" in b.informativeText()]
    assert shown
    shown[0].close()
