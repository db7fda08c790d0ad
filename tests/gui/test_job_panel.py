"""The job panel: Run starts, Cancel cancels (a real ``cancelled``, never a failure), progress shows the job's text
with its ETA, a failure is written once in the theme's error colour, a toggle has one button, and the buttons keep
their place whatever the status line says."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QApplication, QPushButton, QVBoxLayout, QWidget

from studio.gui.session import theme
from studio.gui.widgets.job_panel import JobPanel, Words


class FakeJob:
    label = "evaluation"


class FakeHandle(QObject):
    progress = Signal(float, str, object)
    frame = Signal(object)
    ended = Signal(str, str)

    def __init__(self) -> None:
        super().__init__()
        self.job, self.done, self.result, self.cancel_asked = FakeJob(), False, None, False

    def progress_text(self) -> str:
        return "reading the split — about 3 s left"

    def cancel(self) -> None:
        self.cancel_asked = True

    def end(self, state: str, message: str = "", result: Any = None) -> None:
        self.done, self.result = True, result
        self.ended.emit(state, message)


def _record(panel: JobPanel) -> list[tuple]:
    seen: list[tuple] = []
    panel.run_clicked.connect(lambda: seen.append(("run",)))
    panel.done.connect(lambda r: seen.append(("done", r)))
    panel.failed.connect(lambda m: seen.append(("failed", m)))
    panel.cancelled.connect(lambda: seen.append(("cancelled",)))
    panel.ended.connect(lambda s: seen.append(("ended", s)))
    panel.busy_changed.connect(lambda b: seen.append(("busy", b)))
    return seen


def test_run_progress_and_done(qtbot):
    panel = JobPanel("Evaluate", words=Words(idle="Pick a run.", progress="{label}: {text}"))
    qtbot.addWidget(panel)
    seen = _record(panel)
    assert panel.status.text() == "Pick a run." and not panel.cancel_button.isEnabled()
    panel.run_button.click()
    assert seen == [("run",)]
    handle = panel.start(FakeHandle())
    assert panel.busy and panel.handle is handle and panel.status.text() == "Starting…"
    assert not panel.run_button.isEnabled() and panel.cancel_button.isEnabled()
    handle.progress.emit(0.25, "reading the split", 3.0)
    assert panel.bar.value() == 250 and panel.status.text() == "evaluation: reading the split — about 3 s left"
    handle.end("finished", result={"accuracy": 0.9})
    assert seen[1:] == [("busy", True), ("busy", False), ("done", {"accuracy": 0.9}), ("ended", "finished")]
    assert panel.bar.value() == panel.bar.maximum() and panel.run_button.isEnabled()
    assert not panel.cancel_button.isEnabled() and panel.status.styleSheet() == ""


def test_cancel_is_a_cancel_not_a_failure(qtbot):
    panel = JobPanel()
    qtbot.addWidget(panel)
    seen = _record(panel)
    handle = panel.start(FakeHandle())
    panel.cancel_button.click()
    assert handle.cancel_asked and panel.status.text() == "Cancelling…"
    handle.end("stopped")
    assert ("cancelled",) in seen and not [s for s in seen if s[0] == "failed"]
    assert panel.status.text() == "Cancelled." and panel.bar.value() == 0 and panel.status.styleSheet() == ""
    assert not panel.cancel()  # nothing runs now


def test_a_failure_is_written_once_in_the_themes_error_colour(qtbot):
    panel = JobPanel()
    qtbot.addWidget(panel)
    seen = _record(panel)
    message = "no checkpoint at step 12\nTraceback (most recent call last): …"
    panel.start(FakeHandle()).end("failed", message)
    assert ("failed", message) in seen  # the view gets the whole reason
    assert panel.status.text() == "Failed: no checkpoint at step 12"  # the line, the first line only
    assert panel.status.styleSheet() == f"color: {theme.error_colour()}"
    assert theme.error_colour("light") != theme.error_colour("dark")
    panel.start(FakeHandle())
    assert panel.status.styleSheet() == ""  # the next job clears it


def test_a_toggle_has_one_button_that_cancels_while_busy(qtbot):
    panel = JobPanel("Show", toggle=True)
    qtbot.addWidget(panel)
    seen = _record(panel)
    panel.show()
    assert not panel.cancel_button.isVisible()
    handle = panel.start(FakeHandle())
    assert panel.run_button.text() == "Cancel" and panel.run_button.isEnabled()
    panel.run_button.click()
    assert handle.cancel_asked and ("run",) not in seen
    handle.end("stopped")
    assert panel.run_button.text() == "Show"


def test_added_buttons_and_runnable(qtbot):
    panel = JobPanel("Compute")
    qtbot.addWidget(panel)
    other, free = QPushButton("Sharpness"), QPushButton("Paper check")
    panel.add_button(other)
    panel.add_button(free, while_busy=True)
    panel.set_runnable(False)
    assert not panel.run_button.isEnabled() and not other.isEnabled() and free.isEnabled()
    panel.set_runnable(True)
    handle = panel.start(FakeHandle())
    assert not other.isEnabled() and free.isEnabled()
    handle.end("finished")
    assert other.isEnabled() and panel.run_button.isEnabled()


def test_a_replacing_panel_cancels_the_job_it_replaces(qtbot):
    panel = JobPanel("Compute", replaces=True)
    qtbot.addWidget(panel)
    first = panel.start(FakeHandle())
    assert panel.run_button.isEnabled()  # Compute again recomputes
    second = panel.start(FakeHandle())
    assert first.cancel_asked and panel.handle is second


def test_the_buttons_keep_their_place(qtbot):
    """At the foot of a column (as in a demo), a bar or a status line that appeared would push the buttons up."""
    holder = QWidget()
    column = QVBoxLayout(holder)
    column.addStretch(1)
    panel = JobPanel("Run")
    column.addWidget(panel)
    qtbot.addWidget(holder)
    holder.resize(320, 400)
    holder.show()
    qtbot.waitExposed(holder)

    def places() -> tuple:
        return panel.run_button.mapTo(holder, panel.run_button.rect().topLeft())

    idle = places()
    assert panel.status.text() == ""  # nothing to say before a job
    handle = panel.start(FakeHandle())
    handle.progress.emit(0.5, "", None)
    QApplication.processEvents()  # a layout change would be applied now (posted LayoutRequest events)
    assert places() == idle
    handle.end("failed", "no such checkpoint")
    QApplication.processEvents()
    assert places() == idle
