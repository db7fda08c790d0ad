"""Landscape and sharpness jobs in a background process, with progress messages and cancel.

Torch-free at import (the GUI imports it): the spawned child imports the landscape code itself. The
messages are the engine's protocol (``engine/protocol.py``) on a multiprocessing queue:
``status`` "running" with ``fraction`` and ``text`` as progress, ``artifact`` (kind "landscape" or
"sharpness", with the result's ``summary``) when a result is saved, then ``status`` "finished" (with the
summary), "stopped" (cancelled) or an ``error`` with a message a person can act on. Cancel puts "stop"
on the control queue; the child checks it at every progress report, and is terminated if it has not
ended within a grace period.
"""

from __future__ import annotations

import multiprocessing
import queue as queue_mod
import signal
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from studio.core.errors import StudioError
from studio.engine import protocol
from studio.engine.protocol import Message
from studio.engine.queues import drain
from studio.engine.sinks import QueueSink

TASKS = ("landscape", "sharpness")
CANCEL_GRACE_S = 5.0
PROGRESS_INTERVAL_S = 0.1  # at most ~10 progress messages a second


def job_main(spec: dict[str, Any]) -> None:
    """The child's entry (spawn target): run the task, report on the queue, honour cancel. Imports torch
    only here, inside the child."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides
    from studio.engine import landscape_compute as compute

    compute.set_threads(spec.get("threads", 0))
    sink = QueueSink(spec["queue"])
    control, run_id, task = spec["control"], spec["run_id"], spec["task"]
    last = [0.0, ""]

    def progress(fraction: float, text: str) -> None:
        try:
            command = control.get_nowait()
        except (queue_mod.Empty, OSError, EOFError, ValueError):
            command = None
        if command == "stop":
            raise compute.Cancelled(f"the {task} was cancelled")
        now = time.monotonic()
        if now - last[0] >= PROGRESS_INTERVAL_S or text != last[1] or fraction >= 1.0:
            last[:] = [now, text]
            sink.send(protocol.status(run_id, "running", task=task, fraction=round(fraction, 4), text=text))

    code = 0
    try:
        if task == "landscape":
            result, path = compute.compute_landscape(spec["run_dir"], **spec["options"], progress=progress)
            summary = {**result.summary(), "seconds": result.meta["seconds"]}
            sink.send(protocol.artifact(run_id, "landscape", str(path), summary=summary))
        else:
            summary = compute.compute_sharpness(spec["run_dir"], **spec["options"], progress=progress)
            sink.send(protocol.artifact(run_id, "sharpness", summary.get("path", ""), summary=summary))
        sink.send(protocol.status(run_id, "finished", task=task, summary=summary))
    except compute.Cancelled:
        sink.send(protocol.status(run_id, "stopped", task=task, message="cancelled"))
    except BaseException as err:  # noqa: BLE001 - every failure is reported, then the process exits non-zero
        message = str(err) if isinstance(err, StudioError) else f"{task} failed: {type(err).__name__}: {err}"
        code = err.exit_code if isinstance(err, StudioError) else 3
        sink.send(protocol.error(run_id, message, detail=traceback.format_exc(), exit_code=code))
    finally:
        sink.close()
    if code:
        sys.exit(code)


class LandscapeJob:
    """A landscape or sharpness computation running in its own process."""

    def __init__(self, task: str, run_dir: str | Path, options: dict[str, Any] | None = None,
                 threads: int = 0) -> None:
        if task not in TASKS:
            raise ValueError(f"unknown task {task!r}")
        self.task = task
        self.run_dir = Path(run_dir)
        self.run_id = self.run_dir.name
        self.options = dict(options or {})
        self.threads = threads
        self.state = "queued"
        self.fraction = 0.0
        self.text = ""
        self.result: dict[str, Any] | None = None  # the artifact message: path and summary
        self.error: str | None = None
        self.finished = False
        self._ctx = multiprocessing.get_context("spawn")
        self.messages = self._ctx.Queue()
        self.control = self._ctx.Queue()
        self.process: Any = None
        self._cancel_at: float | None = None

    def start(self) -> LandscapeJob:
        spec = {"task": self.task, "run_dir": str(self.run_dir), "options": self.options, "threads": self.threads,
                "queue": self.messages, "control": self.control, "run_id": self.run_id}
        self.process = self._ctx.Process(target=job_main, args=(spec,), name=f"studio-{self.task}", daemon=True)
        self.process.start()
        self.state = "running"
        return self

    def cancel(self) -> None:
        """Ask the child to stop at its next progress report (it is terminated after a grace period)."""
        if self.finished:
            return
        if self._cancel_at is None:
            self._cancel_at = time.monotonic()
        try:
            self.control.put("stop")
        except (OSError, ValueError):
            pass

    def poll(self, timeout: float = 0.0) -> list[Message]:
        """Messages since the last call (waiting up to ``timeout`` for the first); notices the end."""
        if self.finished:
            return []
        out: list[Message] = drain(self.messages, timeout)
        for message in out:
            self._observe(message)
        if self.process is not None and not self.process.is_alive():
            out.extend(self._end())
        elif self._cancel_at is not None and time.monotonic() - self._cancel_at > CANCEL_GRACE_S:
            self.process.terminate()
            self.process.join(timeout=3)
            out.extend(self._end(forced="stopped"))
        return out

    def _observe(self, message: Message) -> None:
        kind = message.get("type")
        if kind == "status":
            self.state = message["status"]
            if "fraction" in message:
                self.fraction, self.text = float(message["fraction"]), str(message.get("text", ""))
        elif kind == "artifact":
            self.result = message
        elif kind == "error":
            self.error = message["message"]

    def _end(self, forced: str | None = None) -> list[Message]:
        self.process.join(timeout=5)
        tail: list[Message] = drain(self.messages, 0.05, each_timeout=0.05)
        for message in tail:
            self._observe(message)
        self.finished = True
        if forced:
            self.state = forced
        elif self.error:
            self.state = "failed"
        elif self.state not in ("finished", "stopped"):
            self.state = "failed"
            self.error = f"the {self.task} process ended without a result (exit code {self.process.exitcode})"
        if self.state == "failed":
            tail.append(protocol.status(self.run_id, "failed", message=self.error or ""))
        elif forced:
            tail.append(protocol.status(self.run_id, forced))
        for q in (self.messages, self.control):
            q.cancel_join_thread()
            q.close()
        return tail

    def kill(self) -> None:
        if not self.finished and self.process is not None:
            self.process.terminate()
            self._end(forced="stopped")

    def wait(self, timeout: float | None = None) -> str:
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self.finished:
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError(f"{self.task} of run {self.run_id} still {self.state}")
            self.poll(timeout=0.1)
        return self.state


def start_landscape_job(task: str, run_dir: str | Path, options: dict[str, Any] | None = None,
                        threads: int = 0) -> LandscapeJob:
    """Start ``task`` ("landscape" or "sharpness") on the run in ``run_dir``.

    ``options`` are the keyword arguments of ``compute_landscape`` / ``compute_sharpness``
    (studio/core/landscape/compute.py), e.g. ``{"kind": "2d", "resolution": 21, "samples": 1000}``.
    """
    return LandscapeJob(task, run_dir, options, threads).start()
