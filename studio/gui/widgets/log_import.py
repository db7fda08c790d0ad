"""TensorBoard logs opened or dropped on the window, imported as runs by a background task
(``core/contracts/tasks.IMPORT_LOGS``, ``engine/tasks/log_import.py``) that the Session starts and a
:class:`JobBinding` follows, as every other: a progress dialog says which run it reads and can cancel (the runs
imported by then stay). ``done`` carries the report (``LogImportResult``), ``failed`` one sentence."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QProgressDialog, QWidget

from studio.core.contracts.jobs import LogImportRequest
from studio.gui.session.job_binding import JobBinding


class LogImporter(QObject):
    done = Signal(object)  # LogImportResult
    failed = Signal(str)
    cancelled = Signal()

    def __init__(self, session: Any, window: QWidget | None = None) -> None:
        super().__init__(window)
        self.session, self.window = session, window
        self.binding = JobBinding(self)
        self.binding.progress.connect(self._progress)
        self.binding.done.connect(self.done)
        self.binding.failed.connect(self.failed)
        self.binding.cancelled.connect(self.cancelled)
        self.binding.ended.connect(lambda _state: self._close_dialog())
        self.dialog: QProgressDialog | None = None

    @property
    def busy(self) -> bool:
        return self.binding.running

    def start(self, logdir: str) -> bool:
        """Import ``logdir`` in the background; False when an import of logs is still running."""
        if self.busy:
            return False
        self.binding.start(self.session.start(LogImportRequest(logdir, str(self.session.store.home))))
        dialog = QProgressDialog(f"Importing the TensorBoard logs in {logdir}…", "Cancel", 0, 0, self.window)
        dialog.setObjectName("log_import_progress")
        dialog.setWindowTitle("Import TensorBoard logs")
        dialog.setWindowModality(Qt.WindowModality.NonModal)
        dialog.setMinimumDuration(0)
        dialog.setAutoClose(False)
        dialog.setAutoReset(False)
        dialog.canceled.connect(self.cancel)
        dialog.show()
        self.dialog = dialog
        return True

    def cancel(self) -> None:
        """Stop after the run being read; the runs imported so far stay."""
        if self.binding.cancel() and self.dialog is not None:
            self.dialog.setLabelText("Cancelling after this run…")

    def _progress(self, fraction: float, text: str) -> None:
        if self.dialog is not None:
            self.dialog.setMaximum(1000)
            self.dialog.setValue(int(fraction * 1000))
            self.dialog.setLabelText(f"Importing TensorBoard logs: {text}")

    def _close_dialog(self) -> None:
        if self.dialog is not None:
            self.dialog.canceled.disconnect(self.cancel)
            self.dialog.close()
            self.dialog.deleteLater()
            self.dialog = None
