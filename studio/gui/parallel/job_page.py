"""The base of a lab page that runs one background task (the Async SGD and Input pipeline pages): the request from
the page's form started as a task of ``engine/tasks`` through ``JobBinding``, with its Run/Cancel buttons, progress
bar and status line following the job. No torch here: the task module is imported when Run is pressed."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QLabel, QProgressBar, QPushButton, QWidget

from studio.core.errors import StudioError
from studio.gui.session.job_binding import JobBinding


class JobPage(QWidget):
    """Subclasses set ``TASK`` (a name in ``core/contracts/tasks.py``) and ``STARTING`` (the status while it starts),
    build ``run_button``, ``cancel_button``, ``bar`` and ``status``, and define ``request()`` and ``show_result()``."""

    TASK = ""
    STARTING = ""
    run_button: QPushButton
    cancel_button: QPushButton
    bar: QProgressBar
    status: QLabel

    def __init__(self, session: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.result: dict[str, Any] | None = None
        self.error: str | None = None
        self.job = JobBinding.wired(self, self._progress, self._on_done, self._on_failed)

    def request(self) -> Any:
        raise NotImplementedError

    def show_result(self, result: dict[str, Any]) -> None:
        raise NotImplementedError

    def show_status(self, text: str, error: bool = False) -> None:
        self.status.setText(text)
        self.status.setStyleSheet("color: #d9413b" if error else "")

    def run(self) -> None:
        """Start the form's request; a form that is not one is refused in one sentence on the status line."""
        if self.job.running:
            return
        try:
            request = self.request()
        except StudioError as err:
            self.show_status(str(err), error=True)
            return
        self.error = None
        self.bar.setValue(0)
        self.show_status(self.STARTING)
        self.run_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.job.start(self.session.start(request))

    def _progress(self, fraction: float, text: str) -> None:
        self.bar.setValue(int(fraction * 100))
        self.status.setText(text)

    def _on_failed(self, message: str) -> None:
        self.error = message
        self.bar.setValue(0)
        self.run_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        self.show_status("Cancelled." if message == "cancelled" else f"Failed: {message}", error=message != "cancelled")

    def _on_done(self, result: dict[str, Any]) -> None:
        self.run_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        self.bar.setValue(100)
        self.show_result(result)
