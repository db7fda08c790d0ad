"""Issue 13, a classroom-ready interface: no run lost to a stray key, runs named by what differs, curves
that can be read and told apart, settings with units and mismatch warnings."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QComboBox


class FakeJob:
    """Stands in for a training job: records whether it was told to stop."""

    def __init__(self) -> None:
        self.stopped = False
        self.finished = False

    def stop(self) -> None:
        self.stopped = True

    pause = resume = kill = lambda self: None


def _running(window) -> FakeJob:
    job = FakeJob()
    window.session.jobs["run-1"] = job
    window.session._set_state("running")
    return job


def test_esc_in_a_dialog_or_popup_leaves_the_run_training(qtbot, window):
    job = _running(window)
    window.activateWindow()
    window.about_action.trigger()
    box = window.about_box
    qtbot.waitUntil(box.isVisible)
    qtbot.keyClick(box, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not box.isVisible())  # Esc closed the About box …
    assert not job.stopped  # … and only that
    combo = window.findChild(QComboBox, "data_choice")
    combo.showPopup()
    popup = QApplication.activePopupWidget()
    qtbot.keyClick(popup or combo, Qt.Key.Key_Escape)
    qtbot.keyClick(window, Qt.Key.Key_Escape)  # Esc on the window itself: nothing either
    assert not job.stopped
    assert window.stop_action.shortcut().toString() == "Ctrl+."
    window.stop_action.trigger()  # the explicit Stop still stops
    assert job.stopped
    window.session.jobs.clear()
