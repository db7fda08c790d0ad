"""One binding between a widget and its background job, on the model of Orange3's ``ConcurrentWidgetMixin``.

A widget asks the Session for a job (``Session.start(request)`` returns a ``JobHandle``) and hands it to its
:class:`JobBinding` (most widgets through their ``widgets/job_panel.JobPanel``), which turns the handle's signals
into ``progress(fraction, text)`` (the text with the ETA), ``frame(object)`` (a live snapshot), and exactly one of
``done(result)``, ``failed(message)`` or ``cancelled()``, then ``ended(state)``. Signals of a job the binding no
longer holds (replaced by a newer one) are dropped, so a widget never sees a stale result. ``cancel()`` asks the
job to stop; ``running`` says whether one is in progress; ``handle`` stays on the last job after it ended (its
``errors`` carry the failure's fields).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Signal

from studio.core.contracts.progress import FINISHED, STOPPED


class JobBinding(QObject):
    progress = Signal(float, str)  # fraction 0..1, the job's text with its ETA ("loading — about 3 s left")
    frame = Signal(object)  # a live snapshot (landscape previews, demo frames)
    done = Signal(object)  # the job's result
    failed = Signal(str)  # why, in words
    cancelled = Signal()
    ended = Signal(str)  # the final state, after done / failed / cancelled

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.handle: Any = None  # the JobHandle of the current (or last) job

    @property
    def running(self) -> bool:
        return self.handle is not None and not self.handle.done

    @property
    def current(self) -> Any:
        """The handle of the job in progress, or None."""
        return self.handle if self.running else None

    @property
    def label(self) -> str:
        return self.handle.job.label if self.handle is not None else ""

    def start(self, handle: Any) -> Any:
        """Follow ``handle`` (from ``Session.start``) instead of any earlier job; returns it."""
        self.handle = handle
        handle.progress.connect(lambda fraction, _text, _eta, h=handle: self._progress(h, fraction))
        handle.frame.connect(lambda data, h=handle: self._frame(h, data))
        handle.ended.connect(lambda state, message, h=handle: self._ended(h, state, message))
        return handle

    def cancel(self) -> bool:
        """Ask the job in progress to stop (it ends with ``cancelled``); False when none runs."""
        if not self.running:
            return False
        self.handle.cancel()
        return True

    def _progress(self, handle: Any, fraction: float) -> None:
        if handle is self.handle and not handle.done:
            self.progress.emit(fraction, handle.progress_text())

    def _frame(self, handle: Any, data: object) -> None:
        if handle is self.handle:
            self.frame.emit(data)

    def _ended(self, handle: Any, state: str, message: str) -> None:
        if handle is not self.handle:
            return
        if state == FINISHED:
            self.done.emit(handle.result)
        elif state == STOPPED:
            self.cancelled.emit()
        else:
            self.failed.emit(message or f"the {handle.job.label} {state}")
        self.ended.emit(state)
