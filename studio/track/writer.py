"""The writer thread of a tracked run: the training thread only appends to a list; every ``flush_s`` this thread
hands the rows to ``RunStore.log_metrics`` (the store function a native run's rank 0 uses: runs.db and the run
folder's metrics.csv), and every ``beat_s`` records the run's heartbeat.

A store that cannot be written (a read-only or full disk) is said once; the rows wait (up to ``MAX_WAITING``, the
oldest dropped past it) and go in when it can take them again. A kill loses at most the rows not yet flushed.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from studio.core.errors import StudioError
from studio.core.runs.store import RunStore
from studio.track.values import as_float
from studio.track.warn import warn_once

MAX_WAITING = 1_000_000  # rows kept while the store cannot take them


class Writer:
    """Buffers ``(step, name, value, wall)`` rows and writes them from a thread of its own."""

    def __init__(self, store: RunStore, run_id: str, flush_s: float = 0.5, beat_s: float = 10.0) -> None:
        self.store, self.run_id = store, run_id
        self.flush_s, self.beat_s = flush_s, beat_s
        self._rows: list[tuple[int, str, Any, float]] = []
        self._lock = threading.Lock()
        self._flushing = threading.Lock()  # one flush at a time (the thread's, a script's run.flush(), close)
        self._stop = threading.Event()
        self._waiting: list[tuple[int, str, float, float]] = []  # converted, not yet taken by the store
        self.written = 0  # rows the store took
        self.last: dict[str, float] = {}  # each metric's last value (the run's summary)
        self.last_step: int | None = None
        self._beaten = time.monotonic()
        self._thread = threading.Thread(target=self._loop, name="studio-track-writer", daemon=True)
        self._thread.start()

    def put(self, rows: list[tuple[int, str, Any, float]]) -> None:
        """Queue rows (the training thread: a list append under a lock)."""
        with self._lock:
            self._rows.extend(rows)

    def _loop(self) -> None:
        while not self._stop.wait(self.flush_s):
            self.flush()
            if time.monotonic() - self._beaten >= self.beat_s:
                self._beaten = time.monotonic()
                try:
                    self.store.beat(self.run_id)
                except StudioError:
                    pass  # said by the flush that failed the same way

    def flush(self) -> None:
        """Write what is queued (either thread; the store gives each thread its own connection)."""
        with self._flushing:
            self._flush()

    def _flush(self) -> None:
        with self._lock:
            rows, self._rows = self._rows, []
        for step, name, value, wall in rows:
            number = as_float(name, value)
            if number is not None:
                self._waiting.append((step, name, number, wall))
                self.last[name] = number
                self.last_step = step if self.last_step is None else max(self.last_step, step)
        if not self._waiting:
            return
        try:
            self.store.log_metrics(self.run_id, self._waiting)
        except StudioError as err:
            if len(self._waiting) > MAX_WAITING:
                del self._waiting[:len(self._waiting) - MAX_WAITING]
            warn_once(f"store:{self.run_id}", f"cannot record the run's values ({err}); training goes on, and "
                                              "they are kept in memory until the store can take them")
            return
        self.written += len(self._waiting)
        self._waiting = []

    def close(self) -> None:
        """Stop the thread and write what is left."""
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join()
        self.flush()
