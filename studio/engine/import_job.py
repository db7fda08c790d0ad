"""Imports (and other slow data work: catalog downloads, augmentation previews) in a spawned
process, so the GUI never blocks: progress comes back on a queue, cancel is a flag the import
checks, and a cancelled or killed import leaves nothing in the cache.

Torch-free and Qt-free at import: the GUI polls ``BackgroundJob.poll`` from a timer.
"""

from __future__ import annotations

import importlib
import multiprocessing
import time
import traceback
from typing import Any

from studio.core.datasets import cache
from studio.engine.queues import drain

CANCEL_GRACE_S = 5.0  # after Cancel, the import has this long to stop by itself before it is killed


def _child(target: str, kwargs: dict[str, Any], messages: Any, cancel: Any) -> None:
    from studio.core.datasets.importers import ChoiceNeeded, ImportCancelled, Progress
    from studio.core.errors import StudioError

    def report(done: int, total: int, text: str) -> None:
        messages.put({"type": "progress", "done": done, "total": total, "text": text})

    try:
        module, _, name = target.partition(":")
        func = getattr(importlib.import_module(module), name)
        result = func(progress=Progress(report, cancel.is_set), **kwargs)
        messages.put({"type": "done", "result": result})
    except ImportCancelled as err:
        messages.put({"type": "cancelled", "message": str(err)})
    except ChoiceNeeded as err:
        messages.put({"type": "error", "message": str(err), "option": err.option, "choices": err.choices})
    except StudioError as err:
        messages.put({"type": "error", "message": str(err)})
    except MemoryError:
        messages.put({"type": "error", "message": "the machine ran out of memory; import fewer or smaller images "
                                                  "(a smaller size, or 1 channel)"})
    except Exception as err:  # noqa: BLE001 - every failure reaches the person as a sentence
        messages.put({"type": "error", "message": f"the import failed: {type(err).__name__}: {err}",
                      "detail": traceback.format_exc()})


class BackgroundJob:
    """``target(progress=..., **kwargs)`` ("module:function") in a spawned process.

    ``poll()`` returns the messages so far: ``progress`` {done, total, text}, then one of
    ``done`` {result}, ``error`` {message, option?, choices?} or ``cancelled``.
    """

    def __init__(self, target: str, **kwargs: Any) -> None:
        self._ctx = multiprocessing.get_context("spawn")
        self.messages = self._ctx.Queue()
        self._cancel = self._ctx.Event()
        self.process = self._ctx.Process(target=_child, args=(target, kwargs, self.messages, self._cancel),
                                         name="studio-import", daemon=True)
        self.finished = False
        self.outcome: dict[str, Any] | None = None  # the final message
        self._cancel_at: float | None = None

    def start(self) -> BackgroundJob:
        self.process.start()
        return self

    def cancel(self) -> None:
        """Ask the job to stop; it is killed if it has not stopped after CANCEL_GRACE_S."""
        if not self.finished and self._cancel_at is None:
            self._cancel.set()
            self._cancel_at = time.monotonic()

    def poll(self, timeout: float = 0.0) -> list[dict[str, Any]]:
        if self.finished:
            return []
        out: list[dict[str, Any]] = drain(self.messages, timeout)
        for message in out:
            if message["type"] in ("done", "error", "cancelled"):
                self._finish(message)
        if not self.finished:
            if not self.process.is_alive() and self.process.exitcode is not None:
                out += self.poll_remaining()
            elif self._cancel_at is not None and time.monotonic() - self._cancel_at > CANCEL_GRACE_S:
                self.kill()
                out.append(self.outcome or {})
        return out

    def poll_remaining(self) -> list[dict[str, Any]]:
        """After the process exited: what it left on the queue, or an error if it died silently."""
        out: list[dict[str, Any]] = drain(self.messages, 0.2, each_timeout=0.2)
        for message in out:
            if message["type"] in ("done", "error", "cancelled"):
                self._finish(message)
        if not self.finished:
            message = {"type": "cancelled", "message": "the import was cancelled; nothing was saved"} \
                if self._cancel_at is not None else \
                {"type": "error", "message": f"the import process stopped unexpectedly (exit code "
                                             f"{self.process.exitcode}); nothing was saved"}
            self._finish(message)
            out.append(message)
        return out

    def kill(self) -> None:
        """Stop the process now and remove whatever it had started writing in the cache."""
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(3)
            if self.process.is_alive():
                self.process.kill()
                self.process.join(3)
        self._finish({"type": "cancelled", "message": "the import was cancelled; nothing was saved"})

    def wait(self, timeout: float = 600.0) -> dict[str, Any]:
        """Block until the job ends (tests and scripts); its final message."""
        deadline = time.monotonic() + timeout
        while not self.finished and time.monotonic() < deadline:
            self.poll(timeout=0.1)
        if not self.finished:
            self.kill()
        return self.outcome or {}

    def _finish(self, message: dict[str, Any]) -> None:
        if self.finished:
            return
        self.finished = True
        self.outcome = message
        if self.process.pid is not None:
            self.process.join(2)
            if self.process.is_alive():
                self.process.kill()
                self.process.join(2)
            cache.remove_staging(self.process.pid)  # a killed import's half-written folder


def run_import(path: str, options: dict[str, Any] | None = None, progress: Any = None) -> dict[str, Any]:
    """The child's import (options as a dict of ImportOptions fields)."""
    from studio.core.datasets.importers import ImportOptions, import_path

    opts = ImportOptions(**{k: (tuple(v) if isinstance(v, list) else v) for k, v in (options or {}).items()})
    return import_path(path, opts, progress)


def run_fetch(name: str, progress: Any = None) -> dict[str, Any]:
    """The child's catalog fetch (local files or a download)."""
    from studio.core.datasets.torchvision_catalog import ensure

    return ensure(name, progress)


def run_preview(name: str, params: dict[str, Any], count: int = 16, seed: int = 0, progress: Any = None) -> dict:
    """The child's augmentation preview (imports torch)."""
    from studio.engine.augment import preview

    if progress is not None:
        progress.stage("loading the dataset")
    return preview(name, params, count, seed)


def start_import(path: str, options: dict[str, Any] | None = None) -> BackgroundJob:
    return BackgroundJob("studio.engine.import_job:run_import", path=path, options=options or {}).start()


def start_fetch(name: str) -> BackgroundJob:
    return BackgroundJob("studio.engine.import_job:run_fetch", name=name).start()


def start_preview(name: str, params: dict[str, Any], count: int = 16, seed: int = 0) -> BackgroundJob:
    return BackgroundJob("studio.engine.import_job:run_preview", name=name, params=params, count=count,
                         seed=seed).start()
