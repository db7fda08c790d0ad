"""The curves' worker thread: reads a selection from the run store and prepares what to draw, off the GUI thread.

Each request carries a generation; a newer one supersedes it (``generation`` moves on), the worker stops at its
next check and its result is never delivered. Runs read by a superseded request are kept until the next request
says whether it still wants them, so selecting A, then B, then A again reads A once. One thread serves every
curves view in the process (the machine's cores are shared; reading SQLite twice at once only slows both).
"""

from __future__ import annotations

import threading
import traceback
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from PySide6.QtCore import QObject, Signal

from studio.core.config.external import EXTERNAL
from studio.gui.plots.curve_data import Cancelled, Job, Prepared, Series, Snap, prepare

_POOL: ThreadPoolExecutor | None = None


def _pool() -> ThreadPoolExecutor:
    global _POOL
    if _POOL is None:
        _POOL = ThreadPoolExecutor(max_workers=1, thread_name_prefix="studio-curves")
    return _POOL


class CurveLoader(QObject):
    """``submit`` a job (and the runs to read first); ``done(Prepared)`` or ``failed(message)`` arrive on the GUI
    thread for the latest request only."""

    done = Signal(object)
    failed = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.generation = 0
        self.worker_threads: set[int] = set()  # the threads that prepared curves (tests: never the GUI's)
        self._read: dict[str, tuple[dict[str, Series], int, bool]] = {}  # run → read_run's (series, batch, by script)
        self._lock = threading.Lock()

    def next_generation(self) -> int:
        self.generation += 1
        return self.generation

    def submit(self, job: Job, store: Any = None, load: list[str] | None = None) -> None:
        """Prepare ``job`` on the worker thread, reading the runs ``load`` from ``store`` first."""
        load = list(load or [])
        with self._lock:
            self._read = {r: v for r, v in self._read.items() if r in load}
        _pool().submit(self._work, job, store, load)

    def take(self, run_id: str) -> tuple[dict[str, Series], int, bool] | None:
        """A run the worker has read (handed over once)."""
        with self._lock:
            return self._read.pop(run_id, None)

    def cancel(self) -> None:
        """Drop whatever is under way (the view goes)."""
        self.generation += 1

    def _work(self, job: Job, store: Any, load: list[str]) -> None:
        def stale() -> bool:
            return job.generation != self.generation

        try:
            self.worker_threads.add(threading.get_ident())
            for run_id in load:
                if stale():
                    return
                with self._lock:
                    got = self._read.get(run_id)
                if got is None:
                    got = read_run(store, run_id)
                    with self._lock:
                        self._read[run_id] = got
                series, batch, _scripted = got
                job.batch_sizes[run_id] = batch
                job.series[run_id] = _merged(series, job.series.get(run_id, {}))
            result = prepare(job, stale)
            result.loaded = list(load)
            if not stale():
                self.done.emit(result)
            _give_back_memory()
        except Cancelled:
            return
        except RuntimeError:  # the view was deleted while we worked
            return
        except Exception as exc:  # noqa: BLE001 - shown in the window, not lost in a thread
            if not stale():
                try:
                    self.failed.emit(f"Could not draw the curves: {exc}")
                except RuntimeError:
                    return
                traceback.print_exc()


def _give_back_memory() -> None:
    """Return the heap the job freed to the system (glibc keeps a worker thread's freed arena otherwise: 50 runs
    read and smoothed grew the process by ~100 MB that it no longer used)."""
    global _TRIM
    if _TRIM is None:
        try:
            import ctypes

            _TRIM = ctypes.CDLL("libc.so.6").malloc_trim
        except (OSError, AttributeError):
            _TRIM = False
    if _TRIM:
        _TRIM(0)


_TRIM: Any = None


def read_run(store: Any, run_id: str) -> tuple[dict[str, Series], int, bool]:
    """A run's metrics from the store as series, its global batch size (the samples axis), and whether a script
    logged them (a run Studio did not train: ``studio.track``, a TensorBoard import; its [train] settings are
    Studio's defaults, not what the script did)."""
    curves = store.curves([run_id]).get(run_id, {})
    params = store.params(run_id)  # samples per optimizer step: batch_size × accumulate_steps
    batch = (params.get("train.batch_size", 0) or 0) * (params.get("train.accumulate_steps", 1) or 1)
    scripted = params.get("model.name") == EXTERNAL
    return {name: Series(c.steps, c.values, c.walls) for name, c in curves.items()}, int(batch), scripted


def _merged(read: dict[str, Series], live: dict[str, Snap]) -> dict[str, Snap]:
    """What was read, followed by the live rows that arrived after it (those not yet in the store's copy)."""
    out: dict[str, Snap] = {}
    for name in {*read, *live}:
        s = read.get(name)
        extra = live.get(name)
        if s is None:
            if extra is not None:
                out[name] = extra
            continue
        snap = s.snapshot()
        if extra is not None and len(extra.steps):
            last = s.last_step()
            newer = extra.steps > (last if last is not None else -float("inf"))
            if newer.any():
                tmp = Series(snap.steps, snap.values, snap.walls)
                tmp.append(extra.steps[newer], extra.values[newer], extra.walls[newer])
                snap = tmp.snapshot()
        out[name] = snap
    return out


__all__ = ["CurveLoader", "Prepared", "read_run"]
