"""Importing datasets from the GUI: a background import with a progress dialog that can cancel,
a question when the source is ambiguous, a dialog for errors, then the new dataset is selected.

Called by the main window's drag & drop and File > Import…; the work runs in a spawned process
(studio/engine/import_job.py), polled from a timer, so the window never blocks.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QInputDialog, QProgressDialog, QWidget

OPTION_LABELS = {"label_column": "Which column holds the labels?", "x_key": "Which array holds the images?",
                 "y_key": "Which array holds the labels?"}


class ImportController(QObject):
    """``import_path(path)`` and ``fetch(name)``: background work with progress, cancel and errors."""

    imported = Signal(object)  # the import report (dict)
    failed = Signal(str)  # the message
    cancelled = Signal()

    def __init__(self, session: Any, window: QWidget | None = None) -> None:
        super().__init__(window)
        self.session = session
        self.window = window
        self.job: Any = None
        self.dialog: QProgressDialog | None = None
        self._retry: Callable[[dict[str, Any]], None] | None = None
        self._options: dict[str, Any] = {}
        self.timer = QTimer(self)
        self.timer.setInterval(100)
        self.timer.timeout.connect(self.poll)
        # asks the person to pick one of several choices: (title, question, choices) → choice or None;
        # tests replace it
        self.ask: Callable[[str, str, list[str]], str | None] = self._ask

    @property
    def busy(self) -> bool:
        return self.job is not None

    # --- starting --------------------------------------------------------------------------
    def import_path(self, path: str, options: dict[str, Any] | None = None) -> bool:
        """Import ``path`` in the background; False when another import is still running."""
        from studio.engine.import_job import start_import

        if self.busy:
            self.session.status_text.emit("An import is already in progress")
            return False
        self._options = dict(options or {})
        self._retry = lambda extra: self.import_path(path, {**self._options, **extra})
        self._start(start_import(str(path), self._options), f"Importing {Path(path).name}…")
        return True

    def fetch(self, name: str) -> bool:
        """Put catalog dataset ``name`` in the cache (local files or a download) in the background."""
        from studio.engine.import_job import start_fetch

        if self.busy:
            self.session.status_text.emit("An import is already in progress")
            return False
        self._retry = None
        self._start(start_fetch(name), f"Fetching {name}…")
        return True

    def _start(self, job: Any, title: str) -> None:
        self.job = job
        self.dialog = QProgressDialog(title, "Cancel", 0, 0, self.window)
        self.dialog.setObjectName("import_progress")
        self.dialog.setWindowTitle("Import")
        self.dialog.setWindowModality(Qt.WindowModality.NonModal)
        self.dialog.setMinimumDuration(0)
        self.dialog.setAutoClose(False)
        self.dialog.setAutoReset(False)
        self.dialog.canceled.connect(self.cancel)
        self.dialog.show()
        self.session.status_text.emit(title)
        self.timer.start()

    def cancel(self) -> None:
        if self.job is not None:
            self.job.cancel()
            if self.dialog is not None:
                self.dialog.setLabelText("Cancelling…")

    # --- following -------------------------------------------------------------------------
    def poll(self) -> None:
        if self.job is None:
            self.timer.stop()
            return
        for message in self.job.poll():
            if message.get("type") == "progress" and self.dialog is not None:
                total = int(message["total"])
                scale = 1 if total < 2**31 else 1024  # QProgressDialog holds ints
                self.dialog.setMaximum(total // scale)
                self.dialog.setValue(int(message["done"]) // scale)
                self.dialog.setLabelText(message["text"])
        if self.job.finished:
            self._finish(self.job.outcome or {})

    def _finish(self, outcome: dict[str, Any]) -> None:
        self.timer.stop()
        self.job = None
        if self.dialog is not None:
            self.dialog.canceled.disconnect(self.cancel)
            self.dialog.close()
            self.dialog.deleteLater()
            self.dialog = None
        kind = outcome.get("type")
        if kind == "done":
            self._done(outcome["result"])
        elif kind == "cancelled":
            self.session.status_text.emit("Import cancelled; nothing was saved")
            self.cancelled.emit()
        elif kind == "error" and outcome.get("option") and self._retry is not None:
            option = outcome["option"]
            choice = self.ask("Import", f"{outcome['message']}\n\n{OPTION_LABELS.get(option, option)}",
                              list(outcome.get("choices") or []))
            if choice:
                self._retry({option: choice})
            else:
                self.session.status_text.emit("Import cancelled")
                self.cancelled.emit()
        else:
            message = outcome.get("message") or "the import failed"
            self.session.error.emit("Import failed", message)
            self.failed.emit(message)

    def _done(self, report: dict[str, Any]) -> None:
        name = report["name"]
        self.session.set_choice("data", name)
        self.session.notify_datasets_changed()
        cached = " (already imported)" if report.get("cached") else ""
        if report.get("kind") == "text":  # a text corpus (core/text/store.py)
            skipped = f"; {report['skipped']} lines skipped" if report.get("skipped") else ""
            self.session.status_text.emit(f"Text {name}: {report['num_samples']:,} lines for next-word models"
                                          f"{cached}{skipped}")
            self.imported.emit(report)
            return
        c, h, w = report["shape"]
        skipped = f"; {report['skipped']} files skipped" if report.get("skipped") else ""
        self.session.status_text.emit(
            f"Dataset {name}: {report['num_samples']:,} images {c}×{h}×{w}, {report['num_classes']} classes"
            f"{cached}{skipped}")
        self.imported.emit(report)

    def _ask(self, title: str, question: str, choices: list[str]) -> str | None:
        choice, ok = QInputDialog.getItem(self.window, title, question, choices, 0, False)
        return choice if ok else None
