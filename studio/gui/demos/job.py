"""Demos computed in a background process (spawn), one request after another, with progress, live frames
and cancel. Torch-free at import: only the child imports torch (and the demo code).

Messages child → GUI are tuples ``(task_id, kind, payload)``: ``("progress", (fraction, text))``,
``("frame", dict)``, ``("result", dict)``, ``("error", message)``, ``("cancelled", None)``, and
``("started", None)`` when a request begins. The child stays alive between requests, so only the first
demo pays for importing PyTorch.
"""

from __future__ import annotations

import atexit
import itertools
import multiprocessing
import os
import queue as queue_mod
import signal
import time
import traceback
from collections import deque
from typing import Any

PROGRESS_INTERVAL_S = 0.1


def default_threads() -> int:
    """Leave a core to the GUI: tiny demo models gain nothing from more threads anyway."""
    return max(1, min(4, (os.cpu_count() or 2) - 1))


def worker_main(requests: Any, messages: Any, cancels: Any, threads: int) -> None:
    """The child: run requests ``(task_id, name, params)`` until ``None`` arrives."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the GUI decides when to stop
    import torch

    torch.set_num_threads(threads)
    from studio.core.demos.catalog import DEMOS
    from studio.core.demos.common import Cancelled
    from studio.core.errors import StudioError

    cancelled: set[int] = set()

    def drain_cancels() -> None:
        try:
            while True:
                cancelled.add(cancels.get_nowait())
        except (queue_mod.Empty, OSError, EOFError):
            pass

    while True:
        item = requests.get()
        if item is None:
            break
        task_id, name, params = item
        drain_cancels()
        if task_id in cancelled:
            messages.put((task_id, "cancelled", None))
            continue
        messages.put((task_id, "started", None))
        last = [0.0]

        def progress(fraction: float, text: str, task_id: int = task_id, last: list = last) -> None:
            drain_cancels()
            if task_id in cancelled:
                raise Cancelled("stopped")
            now = time.monotonic()
            if now - last[0] >= PROGRESS_INTERVAL_S or fraction >= 1.0:
                last[0] = now
                messages.put((task_id, "progress", (float(fraction), str(text))))

        def emit(frame: dict, task_id: int = task_id) -> None:
            drain_cancels()
            if task_id in cancelled:
                raise Cancelled("stopped")
            messages.put((task_id, "frame", frame))

        try:
            values = DEMOS.resolve(name, params, "demo")
            result = DEMOS.build(name, progress=progress, emit=emit, **values)
            messages.put((task_id, "result", result))
        except Cancelled:
            messages.put((task_id, "cancelled", None))
        except StudioError as err:
            messages.put((task_id, "error", str(err)))
        except Exception as err:  # noqa: BLE001 - reported to the person, the worker keeps serving
            messages.put((task_id, "error", f"the demo failed: {type(err).__name__}: {err}\n{traceback.format_exc()}"))


class DemoTask:
    """One request: its state and the messages not yet taken by its view."""

    def __init__(self, task_id: int, name: str, params: dict[str, Any]) -> None:
        self.id, self.name, self.params = task_id, name, params
        self.state = "queued"  # queued, running, finished, failed, cancelled
        self.inbox: deque[tuple[str, Any]] = deque()

    @property
    def done(self) -> bool:
        return self.state in ("finished", "failed", "cancelled")

    def take(self) -> list[tuple[str, Any]]:
        out = list(self.inbox)
        self.inbox.clear()
        return out


class DemoWorker:
    """A long-lived background process that runs demos one at a time, started on the first request."""

    def __init__(self, threads: int | None = None) -> None:
        self.threads = default_threads() if threads is None else threads
        self._ctx = multiprocessing.get_context("spawn")
        self._ids = itertools.count(1)
        self.tasks: dict[int, DemoTask] = {}
        self.process: Any = None

    def _start(self) -> None:
        self.requests, self.messages, self.cancels = self._ctx.Queue(), self._ctx.Queue(), self._ctx.Queue()
        self.process = self._ctx.Process(target=worker_main, name="studio-demos", daemon=True,
                                         args=(self.requests, self.messages, self.cancels, self.threads))
        self.process.start()

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.is_alive()

    def submit(self, name: str, params: dict[str, Any]) -> DemoTask:
        if not self.alive:
            self._start()
        task = DemoTask(next(self._ids), name, dict(params))
        self.tasks[task.id] = task
        self.requests.put((task.id, name, task.params))
        return task

    def cancel(self, task: DemoTask) -> None:
        if not task.done and self.alive:
            self.cancels.put(task.id)

    def busy_with(self) -> DemoTask | None:
        """The request the child is working on, if any."""
        return next((t for t in self.tasks.values() if t.state == "running"), None)

    def poll(self) -> None:
        """Route the child's messages to their tasks; notice a child that died."""
        if self.process is None:
            return
        try:
            while True:
                task_id, kind, payload = self.messages.get_nowait()
                task = self.tasks.get(task_id)
                if task is None:
                    continue
                if kind == "started":
                    task.state = "running"
                elif kind in ("result", "error", "cancelled"):
                    task.state = {"result": "finished", "error": "failed", "cancelled": "cancelled"}[kind]
                    del self.tasks[task_id]
                task.inbox.append((kind, payload))
        except (queue_mod.Empty, OSError, EOFError, ValueError):
            pass
        if not self.process.is_alive() and self.tasks:
            code = self.process.exitcode
            for task in list(self.tasks.values()):
                task.state = "failed"
                task.inbox.append(("error", f"the demo process ended unexpectedly (exit code {code})"))
            self.tasks.clear()

    def shutdown(self, timeout: float = 2.0) -> None:
        if self.process is None:
            return
        if self.process.is_alive():
            for task in self.tasks.values():
                self.cancels.put(task.id)
            self.requests.put(None)
            self.process.join(timeout)
            if self.process.is_alive():
                self.process.terminate()
                self.process.join(1.0)
        for q in (self.requests, self.messages, self.cancels):
            q.cancel_join_thread()
            q.close()
        self.process = None
        self.tasks.clear()


_shared: DemoWorker | None = None


def shared_worker() -> DemoWorker:
    """The process every demo view of this application uses (PyTorch is imported once)."""
    global _shared
    if _shared is None:
        _shared = DemoWorker()
        atexit.register(_shared.shutdown)
    return _shared
