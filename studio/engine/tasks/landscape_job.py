"""Landscape and sharpness computations as background jobs (``engine/jobs/process_job.py``): progress with
an ETA, cancel, a result (``core/contracts/landscape.py``: ``LandscapeResult`` ``{"path", "summary"}`` or the
sharpness ``{"path", "summary": SharpnessResult}``) and errors in words.

Torch-free at import (the GUI imports it): the child imports the landscape code itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from studio.core.contracts.landscape import LandscapeRequest, LandscapeResult, SharpnessJobResult, SharpnessRequest
from studio.core.host import threads as thread_policy
from studio.core.vocab import JobKind
from studio.engine.jobs.process_job import TaskJob

TASKS = (JobKind.LANDSCAPE, JobKind.SHARPNESS)
Request = LandscapeRequest | SharpnessRequest


def run_landscape(run_dir: str, request: LandscapeRequest, progress: Any, emit: Any = None) -> LandscapeResult:
    """The child's landscape: validated, computed (a 2-D one coarse-to-fine, its preview and rows sent as frames),
    saved, and described by its path and summary."""
    from studio.engine.tasks import landscape as compute

    result, path = compute.landscape_of(run_dir, request, progress=progress, emit=emit)
    summary = result.summary()
    return {"path": str(path), "summary": {
        "kind": summary["kind"], "resolution": summary["resolution"], "center_loss": summary["center_loss"],
        "min_loss": summary["min_loss"], "max_loss": summary["max_loss"], "seconds": result.meta["seconds"]}}


def run_sharpness(run_dir: str, request: SharpnessRequest, progress: Any) -> SharpnessJobResult:
    from studio.engine.tasks import landscape as compute

    summary = compute.sharpness_of(run_dir, request, progress=progress)
    return {"path": summary.get("path", ""), "summary": summary}


def request_for(task: str, options: dict[str, Any] | Request | None) -> Request:
    """The task's request: ``options`` itself, or built from ``compute_landscape``/``compute_sharpness`` keyword
    options (an unknown name is a ConfigError; the limits are checked by the child, before it loads the run)."""
    cls = LandscapeRequest if task == JobKind.LANDSCAPE else SharpnessRequest
    if isinstance(options, cls):
        return options
    if isinstance(options, LandscapeRequest | SharpnessRequest):
        raise ValueError(f"a {type(options).__name__} is not a {task} request")
    return cls.from_options(dict(options or {}))


class LandscapeJob(TaskJob):
    """A landscape or sharpness computation of the run in ``run_dir``; ``request`` is the contract's request."""

    def __init__(self, task: str, run_dir: str | Path, options: dict[str, Any] | Request | None = None,
                 threads: int = 0) -> None:
        if task not in TASKS:
            raise ValueError(f"unknown task {task!r}")
        self.task = task
        self.run_dir = Path(run_dir)
        self.request = request_for(task, options)
        self.requested_threads = threads or self.request.threads
        from studio.core.contracts.tasks import LANDSCAPE, SHARPNESS

        spec = LANDSCAPE if task == JobKind.LANDSCAPE else SHARPNESS
        super().__init__(spec.target, {"run_dir": str(self.run_dir), "request": self.request},
                         label=spec.label, kind=spec.kind, frames=spec.frames)

    def _plan(self) -> thread_policy.ThreadPlan:
        return thread_policy.plan(self.requested_threads, spare=1)


def start_landscape_job(task: str, run_dir: str | Path, options: dict[str, Any] | Request | None = None,
                        threads: int = 0) -> LandscapeJob:
    """Start ``task`` ("landscape" or "sharpness") on the run in ``run_dir``.

    ``options``: a ``LandscapeRequest``/``SharpnessRequest`` (core/contracts/landscape.py) or its fields, e.g.
    ``{"kind": "2d", "resolution": 21, "samples": 1000}``.
    """
    job = LandscapeJob(task, run_dir, options, threads)
    job.start()
    return job
