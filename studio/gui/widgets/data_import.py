"""Importing datasets from the GUI: a background import with a progress dialog that can cancel,
a question when the source is ambiguous, a dialog for errors, then the new dataset is selected.

Called by the main window's drag & drop and File > Import…; the work is a background job the Session
starts and follows (studio/engine/tasks/data_import.py), so the window never blocks.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QInputDialog, QProgressDialog, QWidget

from studio.core.contracts.jobs import FetchRequest, ImportRequest
from studio.gui.session.job_binding import JobBinding
from studio.gui.session.messages import count

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
        self.binding = JobBinding(self)  # the import or fetch in progress
        self.binding.progress.connect(self._progress)
        self.binding.done.connect(self._done)
        self.binding.failed.connect(self._failed)
        self.binding.cancelled.connect(self._cancelled)
        self.dialog: QProgressDialog | None = None
        self._retry: Callable[[dict[str, Any]], object] | None = None  # the import again, with an option
        self._options: dict[str, Any] = {}
        self._what = ""  # what is being imported or fetched (a file name, a dataset name), for the status bar
        # asks the person to pick one of several choices: (title, question, choices) → choice or None;
        # tests replace it
        self.ask: Callable[[str, str, list[str]], str | None] = self._ask

    @property
    def job(self) -> Any:
        """The Session's JobHandle of the import in progress, or None."""
        return self.binding.current

    @property
    def busy(self) -> bool:
        return self.binding.running

    # --- starting --------------------------------------------------------------------------
    def import_path(self, path: str, options: dict[str, Any] | None = None) -> bool:
        """Import ``path`` in the background; False when another import is still running."""
        if self.busy:
            self.session.status_text.emit("An import is already in progress")
            return False
        self._options = dict(options or {})
        self._retry = lambda extra: self.import_path(path, {**self._options, **extra})
        self._what = Path(path).name
        self._start(self.session.start(ImportRequest(str(path), self._options)), f"Importing {Path(path).name}…")
        return True

    def fetch(self, name: str) -> bool:
        """Put catalog dataset ``name`` in the cache (local files or a download) in the background."""
        if self.busy:
            self.session.status_text.emit("An import is already in progress")
            return False
        self._retry = None
        self._what = name
        self._start(self.session.start(FetchRequest(name)), f"Fetching {name}…")
        return True

    def _start(self, job: Any, title: str) -> None:
        self.binding.start(job)
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

    def cancel(self) -> None:
        if self.binding.cancel():
            if self.dialog is not None:
                self.dialog.setLabelText("Cancelling…")

    # --- following -------------------------------------------------------------------------
    def _progress(self, fraction: float, text: str) -> None:
        if self.dialog is not None:
            self.dialog.setMaximum(1000)
            self.dialog.setValue(int(fraction * 1000))
            self.dialog.setLabelText(text)

    def _close_dialog(self) -> None:
        if self.dialog is not None:
            self.dialog.canceled.disconnect(self.cancel)
            self.dialog.close()
            self.dialog.deleteLater()
            self.dialog = None

    def _cancelled(self) -> None:
        self._close_dialog()
        self.session.status_text.emit("Import cancelled; nothing was saved")
        self.cancelled.emit()

    def _failed(self, message: str) -> None:
        """A question the person can answer (which column holds the labels?) retries; anything else is an error."""
        self._close_dialog()
        errors = self.binding.handle.errors
        error = errors[0] if errors else {}
        if error.get("option") and self._retry is not None:
            option = error["option"]
            choice = self.ask("Import", f"{message}\n\n{OPTION_LABELS.get(option, option)}",
                              list(error.get("choices") or []))
            if choice:
                self._retry({option: choice})
            else:
                self.session.status_text.emit("Import cancelled")
                self.cancelled.emit()
        else:  # the status bar's "Importing …" goes with the work (issue 22)
            self.session.status_text.emit(f"Import of {self._what} failed (the message box says why)")
            self.session.error.emit("Import failed", message)
            self.failed.emit(message)

    def _done(self, report: dict[str, Any]) -> None:
        self._close_dialog()
        name = report["name"]
        self.session.set_choice("data", name)
        self.session.notify_datasets_changed()
        cached = " (already imported)" if report.get("cached") else ""
        skips = int(report.get("skipped") or 0)
        details = skipped_details(report)
        if report.get("kind") == "text":  # a text corpus (core/datasets/text/store.py)
            skipped = f"; {count(skips, 'line')} skipped" if skips else ""
            self.session.notice.emit(f"Text {name}: {report['num_samples']:,} lines for next-word models"
                                     f"{cached}{skipped}", details)
            self.imported.emit(report)
            return
        if report.get("kind") == "labelled_text":  # labelled text for bert_classifier (core/datasets/text/labelled.py)
            skipped = f"; {count(skips, 'row')} skipped" if skips else ""
            self.session.notice.emit(f"Labelled text {name}: {report['num_samples']:,} lines in "
                                     f"{report['num_classes']} classes for bert_classifier{cached}{skipped}", details)
            self.imported.emit(report)
            return
        c, h, w = report["shape"]
        skipped = f"; {count(skips, 'file')} skipped" if skips else ""
        self.session.notice.emit(
            f"Dataset {name}: {report['num_samples']:,} images {c}×{h}×{w}, {report['num_classes']} classes"
            f"{cached}{skipped}", details)
        self.imported.emit(report)

    def _ask(self, title: str, question: str, choices: list[str]) -> str | None:
        choice, ok = QInputDialog.getItem(self.window, title, question, choices, 0, False)
        return choice if ok else None


def skipped_details(report: dict[str, Any]) -> str:
    """The skipped files with their reasons, one a line (the report names the first few), or ""."""
    skips = int(report.get("skipped") or 0)
    if not skips:
        return ""
    examples = list(report.get("skipped_examples") or [])
    if not examples:
        return ""
    more = skips - len(examples)
    lines = [f"{count(skips, 'file' if report.get('kind') != 'text' else 'line')} skipped:", *examples]
    if more > 0:
        lines.append(f"… and {count(more, 'more', 'more')}")
    return "\n".join(lines)
