"""An older store's curves converted once, in a background thread, with its progress on the status bar.

Runs written before the curve chunks (core/runs/curve_chunks.py) read as rows until they are converted; the
first read of such a run converts it, but selecting 50 of them at once then waits for all 50. So once the window
has shown, ``RunStore.convert_curves`` runs in a thread of its own (the store gives each thread its own SQLite
connection; one transaction per run, so a run being trained or read meanwhile waits a moment at most), never on
the GUI thread. Its progress comes back as a signal, a few times a second at most. Closing the window stops it
between two runs: what is converted stays converted, the rest waits for the next start.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from PySide6.QtCore import QObject, Signal

from studio.core.errors import StudioError

REPORT_EVERY_S = 0.25  # the status bar is told at most this often


class _Stopped(Exception):
    """The window closed: stop between two runs."""


class CurveConversion(QObject):
    progressed = Signal(int, int)  # runs done, runs to do
    finished = Signal(int, str)  # runs converted, the reason it stopped short ("" when it did not)

    def __init__(self, store: Any, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.worker: threading.Thread | None = None
        self.worker_thread_id: int | None = None  # the thread that converted (tests: never the GUI's)
        self.result: tuple[int, str] | None = None  # what ``finished`` says, once it is said
        self._stop = threading.Event()

    def start(self) -> bool:
        """Start converting in the background; False for a read-only store (it is never changed) or once started."""
        if self.worker is not None or getattr(self.store, "read_only", False):
            return False
        self.worker = threading.Thread(target=self._run, name="studio-curve-conversion", daemon=True)
        self.worker.start()
        return True

    def stop(self, wait_s: float = 5.0) -> None:
        """Stop after the run being converted (its transaction commits or rolls back whole)."""
        self._stop.set()
        if self.worker is not None:
            self.worker.join(wait_s)

    def _run(self) -> None:
        self.worker_thread_id = threading.get_ident()
        last = [0.0]

        def progress(done: int, total: int) -> None:
            if self._stop.is_set():
                raise _Stopped
            now = time.monotonic()
            if done == total or now - last[0] >= REPORT_EVERY_S:
                last[0] = now
                self.progressed.emit(done, total)

        try:
            self.result = (self.store.convert_curves(progress), "")
        except _Stopped:
            self.result = (-1, "the window closed")
        except StudioError as err:
            self.result = (-1, str(err))
        except Exception as err:  # noqa: BLE001 - a speed-up only: whatever stops it is said, nothing is lost
            self.result = (-1, f"{type(err).__name__}: {err}")
        finally:
            self.store.close()  # this thread's connection
        self.finished.emit(*self.result)
