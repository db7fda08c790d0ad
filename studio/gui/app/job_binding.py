"""One background task of a tab, run through the Session's job model (``engine/jobs/process_job.TaskJob``): the
Session starts and follows it; this object turns its handle's signals into ``progress``, ``done(result)`` and
``failed(message)`` ("cancelled" when the person stopped it) for the Compression, Scaling-laws and
Data-parallel tabs."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Signal

from studio.core.vocab import JobState


class TaskRunner(QObject):
    progress = Signal(float, str)
    done = Signal(object)  # the task's return value
    failed = Signal(str)

    def __init__(self, session: Any, kind: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.kind = kind
        self.handle: Any = None

    @property
    def running(self) -> bool:
        return self.handle is not None and not self.handle.done

    def start(self, target: str, kwargs: dict[str, Any], label: str) -> None:
        """Run ``target(progress=..., **kwargs)`` ("module:function") in a child process."""
        if self.running:
            return
        from studio.engine.jobs.process_job import TaskJob

        self.handle = self.session.start_job(TaskJob(target, kwargs, label=label, kind=self.kind), self.kind)
        self.handle.progress.connect(lambda f, _text, _eta: self.progress.emit(f, self.handle.progress_text()))
        self.handle.ended.connect(self._ended)

    def cancel(self) -> None:
        if self.running:
            self.handle.cancel()

    def _ended(self, state: str, message: str) -> None:
        if state == JobState.FINISHED:
            self.done.emit(self.handle.result)
        else:
            self.failed.emit("cancelled" if state == JobState.STOPPED else message or f"the task {state}")
