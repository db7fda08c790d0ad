"""Landscape and sharpness computations as background jobs (``engine/jobs/process_job.py``): progress with
an ETA, cancel, a result ``{"path", "summary"}`` and errors in words.

Torch-free at import (the GUI imports it): the child imports the landscape code itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from studio.core import threads as thread_policy
from studio.core.vocab import JobKind
from studio.engine.jobs.process_job import TaskJob

TASKS = (JobKind.LANDSCAPE, JobKind.SHARPNESS)


def run_landscape(run_dir: str, options: dict[str, Any], progress: Any, emit: Any = None) -> dict[str, Any]:
    """The child's landscape: computed (a 2-D one coarse-to-fine, its preview and rows sent as frames), saved,
    and described by its path and summary."""
    from studio.engine.tasks import landscape as compute

    result, path = compute.compute_landscape(run_dir, **options, progress=progress, emit=emit)
    return {"path": str(path), "summary": {**result.summary(), "seconds": result.meta["seconds"]}}


def run_sharpness(run_dir: str, options: dict[str, Any], progress: Any) -> dict[str, Any]:
    from studio.engine.tasks import landscape as compute

    summary = compute.compute_sharpness(run_dir, **options, progress=progress)
    return {"path": summary.get("path", ""), "summary": summary}


class LandscapeJob(TaskJob):
    """A landscape or sharpness computation of the run in ``run_dir``."""

    def __init__(self, task: str, run_dir: str | Path, options: dict[str, Any] | None = None,
                 threads: int = 0) -> None:
        if task not in TASKS:
            raise ValueError(f"unknown task {task!r}")
        self.task = task
        self.run_dir = Path(run_dir)
        self.requested_threads = threads
        super().__init__(f"studio.engine.tasks.landscape_job:run_{task}",
                         {"run_dir": str(self.run_dir), "options": dict(options or {})},
                         label=task, kind=task, frames=task == JobKind.LANDSCAPE)

    def _plan(self) -> thread_policy.ThreadPlan:
        return thread_policy.plan(self.requested_threads, spare=1)


def start_landscape_job(task: str, run_dir: str | Path, options: dict[str, Any] | None = None,
                        threads: int = 0) -> LandscapeJob:
    """Start ``task`` ("landscape" or "sharpness") on the run in ``run_dir``.

    ``options`` are the keyword arguments of ``compute_landscape`` / ``compute_sharpness``
    (studio/engine/tasks/landscape.py), e.g. ``{"kind": "2d", "resolution": 21, "samples": 1000}``.
    """
    job = LandscapeJob(task, run_dir, options, threads)
    job.start()
    return job
