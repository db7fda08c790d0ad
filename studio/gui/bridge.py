"""The bridge: drains the running jobs' message queues off the GUI thread and emits batches.

Qt signals cross threads as queued connections, so the GUI thread receives at most ~30 batches a
second however fast the workers report, and never blocks on a queue.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from PySide6.QtCore import QThread, Signal

EMIT_INTERVAL_S = 1 / 30


class Bridge(QThread):
    """Polls every job it follows; emits ``batch(list of messages)`` at most ~30 times a second.

    When a job ends, an extra ``{"type": "ended", "run_id", "status", "message", "exit_code"}``
    message follows its last one.
    """

    batch = Signal(object)  # `object`, not `list`: no conversion (PySide6 6.12 mis-counts None in lists)

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._jobs: list[Any] = []
        self._lock = threading.Lock()
        self._quit = threading.Event()

    def follow(self, job: Any) -> None:
        with self._lock:
            self._jobs.append(job)

    def jobs(self) -> list[Any]:
        with self._lock:
            return list(self._jobs)

    def shutdown(self, timeout_ms: int = 3000) -> None:
        self._quit.set()
        self.wait(timeout_ms)

    def run(self) -> None:
        pending: list[dict] = []
        last_emit = time.monotonic()
        while not self._quit.is_set():
            jobs = self.jobs()
            if not jobs:
                time.sleep(0.03)
            for job in jobs:
                pending.extend(job.poll(timeout=0.02 if len(jobs) == 1 else 0.0))
                if job.finished:
                    message = job.errors[0]["message"] if job.errors else ""
                    if not message and job.state == "failed":
                        message = job.store.get(job.run_id).message
                    pending.append({"type": "ended", "run_id": job.run_id, "status": job.state,
                                    "message": message, "exit_code": job.exit_code})
                    with self._lock:
                        self._jobs.remove(job)
            now = time.monotonic()
            if pending and (now - last_emit >= EMIT_INTERVAL_S or any(m["type"] == "ended" for m in pending)):
                self.batch.emit(pending)
                pending, last_emit = [], now
        if pending:
            self.batch.emit(pending)
