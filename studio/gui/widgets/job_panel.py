"""The job panel: a view's Run and Cancel buttons, its progress bar and its status line, following one background
job at a time through a :class:`~studio.gui.session.job_binding.JobBinding`.

Every view that runs a job uses one (a tab, a lab page, a demo, a paper check); what differs is said in words
(:class:`Words`), not in a subclass. The panel emits ``run_clicked`` (the view builds its request and calls
:meth:`JobPanel.start` with the Session's handle), then ``progress``, ``frame``, and exactly one of ``done(result)``,
``failed(message)`` or ``cancelled()``, then ``ended(state)``. A failure is written in the theme's one error colour
(``session/theme.error_colour``). The bar and the status line always keep their place (empty when idle): the
buttons never move when a job starts, reports or fails.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QVBoxLayout, QWidget

from studio.core.errors import StudioError
from studio.gui.session import theme
from studio.gui.session.job_binding import JobBinding

STEPS = 1000  # the bar's resolution


@dataclass(frozen=True)
class Words:
    """What the status line says. Fields may name ``{label}`` (the job's label: "evaluation"); ``progress`` also
    ``{text}`` (the job's text with its ETA) and ``{percent}``; ``failed`` also ``{message}`` (the whole reason)
    and ``{first_line}``; ``refused`` ``{message}``. A field that is None leaves the status line as it is: the view
    writes that line itself (``done``: from the result, by default)."""

    idle: str = ""
    starting: str | None = "Starting…"
    progress: str | None = "{text}"
    cancelling: str | None = "Cancelling…"
    cancelled: str | None = "Cancelled."
    failed: str | None = "Failed: {first_line}"
    done: str | None = None
    refused: str | None = "{message}"  # a form that is not a request (:meth:`JobPanel.submit`): nothing started


class JobPanel(QWidget):
    """Run (``run_button``), Cancel (``cancel_button``), the bar (``bar``) and the status line (``status``).

    ``toggle``: one button that reads ``run_text`` when idle and ``cancel_text`` while a job runs (Cancel is not
    shown). ``replaces``: Run stays on while a job runs, and a new start cancels it (a demo recomputes).
    ``arrange``: ``"stacked"`` (the buttons, the bar below them, the status line below it), ``"compact"`` (the bar
    left of the status line) or ``"inline"`` (the bar right of the buttons, filling the row). A view may put more
    buttons in the row (:meth:`add_button`) or place a button elsewhere in its own layout."""

    run_clicked = Signal()
    progress = Signal(float, str)  # fraction 0..1, the job's text with its ETA
    frame = Signal(object)
    done = Signal(object)
    failed = Signal(str)
    cancelled = Signal()
    ended = Signal(str)
    busy_changed = Signal(bool)

    def __init__(self, run_text: str = "Run", *, cancel_text: str = "Cancel", words: Words | None = None,
                 toggle: bool = False, replaces: bool = False, arrange: str = "stacked",
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.words = words or Words()
        self.run_text, self.cancel_text = run_text, cancel_text
        self.toggle, self.replaces = toggle, replaces
        self.binding = JobBinding(self)
        self.binding.progress.connect(self._progress)
        self.binding.frame.connect(self.frame)
        self.binding.done.connect(self._done)
        self.binding.failed.connect(self._failed)
        self.binding.cancelled.connect(self._cancelled)
        self.binding.ended.connect(self._ended)
        self.error: str | None = None  # why the last job failed (None: it did not, or a new one started)
        self._runnable = True
        self._busy = False
        self._busy_buttons: list[QWidget] = []  # off while a job runs

        self.run_button = QPushButton(run_text)
        self.run_button.clicked.connect(self._run_clicked)
        self.cancel_button = QPushButton(cancel_text)
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        self.bar = QProgressBar()
        self.bar.setRange(0, STEPS)
        self.bar.setValue(0)
        self.bar.setTextVisible(False)
        self.status = QLabel(self.words.idle)
        self.status.setWordWrap(True)
        self.status.setMinimumHeight(self.status.fontMetrics().height())  # an empty line keeps its place

        self.buttons = QHBoxLayout()
        self.buttons.addWidget(self.run_button)
        if not toggle:
            self.buttons.addWidget(self.cancel_button)
        else:
            self.cancel_button.hide()  # a toggle has one button; this one is never shown
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        row.addLayout(self.buttons)
        layout.addLayout(row)
        if arrange == "compact":
            line = QHBoxLayout()
            self.bar.setFixedWidth(120)
            line.addWidget(self.bar)
            line.addWidget(self.status, 1)
            layout.addLayout(line)
        elif arrange == "inline":
            row.addWidget(self.bar, 1)
            layout.addWidget(self.status)
        elif arrange == "stacked":
            layout.addWidget(self.bar)
            layout.addWidget(self.status)
        else:
            raise ValueError(f"unknown arrangement {arrange!r}")

    # --- what a view asks ------------------------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        """A job is in progress."""
        return self.binding.running

    @property
    def handle(self) -> Any:
        """The Session's JobHandle of the job in progress, or of the last one (None before the first)."""
        return self.binding.handle

    @property
    def label(self) -> str:
        return self.binding.label

    def add_button(self, button: QWidget, while_busy: bool = False, at: int | None = None) -> QWidget:
        """Put ``button`` in the row (after the panel's own, or at index ``at``); it is off while a job runs (and
        while Run may not be pressed: :meth:`set_runnable`) unless ``while_busy``."""
        if at is None:
            self.buttons.addWidget(button)
        else:
            self.buttons.insertWidget(at, button)
        if not while_busy:
            self._busy_buttons.append(button)
        self._sync()
        return button

    def set_runnable(self, runnable: bool) -> None:
        """Whether Run (and the row's added buttons) may be pressed at all, e.g. once a run is chosen."""
        self._runnable = runnable
        self._sync()

    def start(self, handle: Any, text: str | None = None) -> Any:
        """Follow ``handle`` (``Session.start(...)``'s) from now on; the status says ``text`` (default: the
        ``starting`` words). With ``replaces``, a job still in progress is cancelled first."""
        if self.replaces:
            self.binding.cancel()
        self.binding.start(handle)
        self.error = None
        self.bar.setValue(0)
        if text is not None:
            self.show_status(text)
        else:
            self._tell(self.words.starting)
        self._sync()
        return handle

    def submit(self, session: Any, request: Callable[[], Any]) -> Any:
        """Unless a job runs: build the request (a StudioError refuses it in one sentence on the status line, in
        the error colour, and nothing starts) and start it through ``session``. The handle, or None."""
        if self.busy:
            return None
        try:
            made = request()
        except StudioError as err:
            self._tell(self.words.refused, error=True, message=str(err))
            return None
        return self.start(session.start(made))

    def cancel(self) -> bool:
        """Ask the job in progress to stop (it ends with ``cancelled``); False when none runs."""
        if not self.binding.cancel():
            return False
        if self.busy:  # (a job may end at once: its cancelled line stays)
            self._tell(self.words.cancelling)
        return True

    def show_status(self, text: str, error: bool = False) -> None:
        """Write ``text`` on the status line; ``error``: in the theme's error colour."""
        self.status.setText(text)
        self.status.setStyleSheet(theme.error_style() if error else "")

    # --- the job's signals -----------------------------------------------------------------------------------
    def _run_clicked(self) -> None:
        if self.toggle and self.busy:
            self.cancel()
            return
        self.run_clicked.emit()

    def _tell(self, words: str | None, error: bool = False, **values: Any) -> None:
        """The status line says ``words`` (filled in with the job's label and ``values``); None: left as it is."""
        if words is not None:
            self.show_status(words.format(label=self.label, **values), error)

    def _progress(self, fraction: float, text: str) -> None:
        self.bar.setValue(int(fraction * STEPS))
        self._tell(self.words.progress, text=text, percent=int(fraction * 100))
        self.progress.emit(fraction, text)

    def _done(self, result: Any) -> None:
        self.bar.setValue(STEPS)
        self._tell(self.words.done)
        self._sync()
        self.done.emit(result)

    def _failed(self, message: str) -> None:
        self.error = message
        self.bar.setValue(0)
        self._tell(self.words.failed, error=True, message=message, first_line=message.strip().split("\n")[0])
        self._sync()
        self.failed.emit(message)

    def _cancelled(self) -> None:
        self.bar.setValue(0)
        self._tell(self.words.cancelled)
        self._sync()
        self.cancelled.emit()

    def _ended(self, state: str) -> None:
        self._sync()
        self.ended.emit(state)

    def _sync(self) -> None:
        """Buttons for the state: Run off while busy (unless it replaces or toggles), Cancel on only then."""
        busy = self.busy
        if self.toggle:
            self.run_button.setEnabled(busy or self._runnable)  # while busy it is the Cancel button
        else:
            self.run_button.setEnabled(self._runnable and (not busy or self.replaces))
        self.cancel_button.setEnabled(busy)
        if self.toggle:
            self.run_button.setText(self.cancel_text if busy else self.run_text)
        for button in self._busy_buttons:
            button.setEnabled(self._runnable and not busy)
        if busy != self._busy:
            self._busy = busy
            self.busy_changed.emit(busy)
