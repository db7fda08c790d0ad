"""A run that fails before it trains (issue 33): the status bar says it failed in one line, never keeps
"Starting run…", and the dialog has the message with the last lines the process wrote to stderr."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtWidgets import QMessageBox

from studio.core.config import RunConfig
from studio.core.runs.store import RunStore
from studio.engine.jobs.process_job import TaskJob
from studio.engine.port import ProcessEngine
from studio.gui.app.main_window import MainWindow
from studio.gui.session.session import Session


class DiesAtStart(TaskJob):
    """A training job whose one process dies before it reports anything (as a rank whose import fails)."""

    def __init__(self, config: RunConfig) -> None:
        super().__init__("tests.unit.job_targets:dies_without_a_word", label="training", kind="training")
        self.config, self.resume_from = config, None

    def pause(self) -> None: ...

    def resume(self) -> None: ...


class Engine(ProcessEngine):
    def training(self, request: Any, store: Any) -> Any:
        return DiesAtStart(RunConfig.from_dict(request.config))


@pytest.fixture
def failing_window(qtbot):
    session = Session(RunStore(), engine=Engine())
    win = MainWindow(session, probe_backend=False)
    win.shell.confirm_close = lambda: True
    qtbot.addWidget(win)
    win.show()
    yield win
    session.shutdown(wait_s=10)


def warnings(window) -> list[QMessageBox]:
    return [b for b in window.findChildren(QMessageBox) if b.isVisible() and b.icon() == QMessageBox.Icon.Warning]


def test_a_run_that_dies_at_start_says_so_in_the_status_bar_and_why_in_the_dialog(qtbot, failing_window):
    window = failing_window
    run_id = window.session.train()
    run = window.session.run_label(run_id)  # its name; this fake job made no run in the store: its id
    assert run_id and run == run_id and window.status.message.text().startswith(f"Starting run {run}")
    qtbot.waitUntil(lambda: bool(warnings(window)), timeout=60_000)
    assert window.status.message.text() == f"Run {run} failed (the message box says why)"
    box = warnings(window)[0]
    assert box.windowTitle() == "Training failed"
    assert box.text().startswith("The training process exited with code 1 without reporting an error; its last "
                                 "lines on stderr:")
    assert box.text().endswith("loading the weights\nlibfoo.so: undefined symbol: bar")
    assert window.train_action.isEnabled()  # idle again: Train can be pressed after fixing the cause
