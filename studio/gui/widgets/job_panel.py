"""The job panel: a view's Run and Cancel buttons, its progress bar and its status line, following one background
job at a time through a :class:`~studio.gui.session.job_binding.JobBinding`.

Every view that runs a job uses one (a tab, a lab page, a demo, a paper check); what differs is said in words
(:class:`Words`), not in a subclass. The panel emits ``run_clicked`` (the view builds its request and calls
:meth:`JobPanel.start` with the Session's handle), then ``progress``, ``frame``, and exactly one of ``done(result)``,
``failed(message)`` or ``cancelled()``, then ``ended(state)``. A failure is written in the theme's one error colour
(``session/theme.error_colour``). The bar and the status line always keep their place (empty when idle) and their
size: the status line reserves ``status_lines`` lines and scrolls what does not fit (the whole text is also its
tooltip), and a toggle button is as wide as its wider text, so the buttons never move when a job starts, reports
or fails, wherever the view puts the panel (issue 33.5).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import Qt as QtGuiQt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from studio.core.errors import StudioError
from studio.gui.session import theme
from studio.gui.session.job_binding import JobBinding

STEPS = 1000  # the bar's resolution
STATUS_LINES = 2  # lines the status line reserves by default: a failure's first line, the job's text with its ETA
FAILURE_LINES = 3  # in a narrow column (the lab's pages, the demos): a failure's sentence or a refusal takes three


class StatusArea(QScrollArea):
    """The status line's place: ``lines`` lines of its font high, whatever it says (a frameless scroll area over
    the word-wrapped label; a text that needs more lines scrolls). Its height follows the font (presentation mode)
    through the size hint, which the layout asks again after a font change."""

    def __init__(self, label: QLabel, lines: int) -> None:
        super().__init__()
        self.setObjectName("job_status_area")
        self.lines = max(1, lines)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.viewport().setAutoFillBackground(False)
        label.setAutoFillBackground(False)
        self.setWidget(label)

    def set_lines(self, lines: int) -> None:
        self.lines = max(1, lines)
        self.updateGeometry()

    def _height(self) -> int:
        return self.lines * self.fontMetrics().lineSpacing() + 1  # whole lines: no sliver of the next one

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(super().sizeHint().width(), self._height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(0, self._height())


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
    left of the status line) or ``"inline"`` (the bar right of the buttons, filling the row). ``status_lines``: the
    lines of text the status line reserves (``status_area``, a frameless scroll area: a longer text scrolls in it,
    and the whole is the tooltip). A view may put more buttons in the row (:meth:`add_button`) or place a button
    elsewhere in its own layout."""

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
                 status_lines: int = STATUS_LINES, parent: QWidget | None = None) -> None:
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
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.status_area = StatusArea(self.status, status_lines)  # its fixed place: a long text scrolls, never pushes
        self.show_status(self.words.idle)

        self.buttons = QHBoxLayout()
        self.buttons.addWidget(self.run_button)
        if not toggle:
            self.buttons.addWidget(self.cancel_button)
        else:
            self.cancel_button.hide()  # a toggle has one button; this one is never shown
            self._fit_toggle_width()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        row.addLayout(self.buttons)
        layout.addLayout(row)
        if arrange == "compact":
            line = QHBoxLayout()
            self.bar.setFixedWidth(120)
            line.addWidget(self.bar, 0, Qt.AlignmentFlag.AlignTop)
            line.addWidget(self.status_area, 1)
            layout.addLayout(line)
        elif arrange == "inline":
            row.addWidget(self.bar, 1)
            layout.addWidget(self.status_area)
        elif arrange == "stacked":
            layout.addWidget(self.bar)
            layout.addWidget(self.status_area)
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
        """Write ``text`` on the status line (its first lines in view; the whole is the tooltip); ``error``: in the
        theme's error colour."""
        self.status.setText(text)
        self.status.setStyleSheet(theme.error_style() if error else "")
        self.status.setToolTip(_plain(text) if text else "")
        self.status_area.verticalScrollBar().setValue(0)

    def _fit_toggle_width(self) -> None:
        """A toggle reads "Run" or "Cancel": as wide as the wider, so neither it nor its neighbours move."""
        widths = []
        for text in (self.run_text, self.cancel_text):
            self.run_button.setText(text)
            widths.append(self.run_button.sizeHint().width())
        self.run_button.setText(self.run_text)
        self.run_button.setMinimumWidth(max(widths))

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


def _plain(text: str) -> str:
    """``text`` as plain text (a status line may be rich text: a fit's formula)."""
    if not QtGuiQt.mightBeRichText(text):
        return text
    document = QTextDocument()
    document.setHtml(text)
    return document.toPlainText()
