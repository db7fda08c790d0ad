"""The bridge: starts and follows every background job off the GUI thread and emits batches.

Starting a job may wait (the warm back end's server may still be importing torch), and reading its
queue must never block the window, so both happen in this thread. Qt signals cross threads as queued
connections: the GUI thread receives at most ~30 batches a second however fast the jobs report.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from PySide6.QtCore import QThread, Signal

from studio.core.contracts import protocol
from studio.core.errors import StudioError

EMIT_INTERVAL_S = 1 / 30


class Bridge(QThread):
    """Starts the jobs it is given, polls them, and emits ``batch(list of messages)`` at most ~30 times a
    second; a job's last message is ``ended`` (``core/contracts/protocol.py``)."""

    batch = Signal(object)  # `object`, not `list`: no conversion (PySide6 6.12 mis-counts None in lists)

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._jobs: list[Any] = []
        self._lock = threading.Lock()
        self._quit = threading.Event()

    def follow(self, job: Any) -> None:
        """Follow ``job``; it is started here if it has not been yet."""
        with self._lock:
            self._jobs.append(job)

    def jobs(self) -> list[Any]:
        with self._lock:
            return list(self._jobs)

    def shutdown(self, timeout_ms: int = 3000) -> None:
        self._quit.set()
        self.wait(timeout_ms)

    def _drop(self, job: Any) -> None:
        with self._lock:
            self._jobs.remove(job)

    def run(self) -> None:
        pending: list[dict] = []
        last_emit = time.monotonic()
        while not self._quit.is_set():
            jobs = self.jobs()
            if not jobs:
                time.sleep(0.03)
            for i, job in enumerate(jobs):
                if not job.started:
                    try:
                        job.start()
                    except StudioError:
                        pass  # the job is finished and failed; its message says why
                    if job.finished:
                        pending.append(job.ended_message())
                        self._drop(job)
                        continue
                pending.extend(job.poll(timeout=0.02 if i == 0 else 0.0))
                if job.finished:
                    self._drop(job)
            now = time.monotonic()
            if pending and (now - last_emit >= EMIT_INTERVAL_S
                            or any(m["type"] == protocol.JOB_ENDED for m in pending)):
                self.batch.emit(pending)
                pending, last_emit = [], now
        if pending:
            self.batch.emit(pending)
