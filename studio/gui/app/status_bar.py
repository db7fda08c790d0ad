"""The main window's status bar: one message (elided, details behind **Details…**), the run's ETA and progress,
the back end's state, and the non-modal error dialogs.

One place per message (issue 13): information goes to the message label, a failure to its dialog only; the next
success closes failure dialogs still open (:meth:`StatusBar.clear_errors`).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QMessageBox, QProgressBar, QStatusBar, QToolButton, QWidget

from studio.gui.session.messages import sentence
from studio.gui.widgets.elided_label import ElidedLabel


class StatusBar(QStatusBar):
    """Message, Details…, ETA, progress bar and back-end label; dialogs are parented to ``window``."""

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self.window_ = window
        self.message = ElidedLabel("Ready")  # a long message ends in "…", never pushing the ETA away
        self.details_button = QToolButton()
        self.details_button.setText("Details…")
        self.details_button.setVisible(False)
        self.details_button.setToolTip("The details of the message beside it (e.g. which files were skipped, "
                                       "and why)")
        self.details_button.clicked.connect(self._show_details)
        self.details = ""
        self.progress = QProgressBar()
        self.progress.setObjectName("progress")
        self.progress.setMaximumWidth(220)
        self.progress.setVisible(False)
        self.eta = QLabel("")
        self.eta.setObjectName("eta")
        self.backend = QLabel("Back end: starting…")
        self.backend.setToolTip("PyTorch loads in the background; the window does not wait for it")
        self.addWidget(self.message, 1)
        self.addWidget(self.details_button)
        self.addPermanentWidget(self.eta)
        self.addPermanentWidget(self.progress)
        self.addPermanentWidget(self.backend)
        self.last_error: tuple[str, str] | None = None
        self._error_boxes: list[QMessageBox] = []

    # --- information ---------------------------------------------------------------------------
    def show_message(self, text: str, details: str = "") -> None:
        """Information (capitalised); ``details`` (e.g. the skipped files) behind Details…."""
        self.message.setText(sentence(text))
        self.details = details
        self.details_button.setVisible(bool(details))
        if details:
            self.details_button.setToolTip(details)

    def _show_details(self) -> None:
        box = QMessageBox(QMessageBox.Icon.Information, "Details", self.message.text(),
                          QMessageBox.StandardButton.Ok, self.window_)
        box.setInformativeText(self.details)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.show()

    # --- failures ------------------------------------------------------------------------------
    def show_error(self, title: str, message: str) -> None:
        """A non-blocking dialog with the message (the window stays usable); the only place it is shown."""
        self.last_error = (title, message)
        box = QMessageBox(QMessageBox.Icon.Warning, title, sentence(message), QMessageBox.StandardButton.Ok,
                          self.window_)
        box.setModal(False)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.destroyed.connect(lambda *_: self._error_boxes.remove(box) if box in self._error_boxes else None)
        self._error_boxes.append(box)
        box.show()

    def clear_errors(self) -> None:
        """A success makes earlier failures stale: close their dialogs."""
        self.last_error = None
        for box in list(self._error_boxes):
            box.close()
        self._error_boxes.clear()

    # --- a run ---------------------------------------------------------------------------------
    def set_eta(self, text: str) -> None:
        """The ETA label is as wide as its text: the message beside it is elided, never the ETA."""
        self.eta.setText(text)
        self.eta.setMinimumWidth(self.eta.sizeHint().width() if text else 0)

    def set_progress(self, value: int | None, maximum: int = 0) -> None:
        """Show the progress bar at ``value`` of ``maximum`` (unchanged when 0); ``None`` hides it."""
        self.progress.setVisible(value is not None)
        if value is None:
            return
        if maximum:
            self.progress.setMaximum(maximum)
        self.progress.setValue(value)

    def set_backend(self, text: str) -> None:
        self.backend.setText(text)
