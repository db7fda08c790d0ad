"""Landscape and sharpness computations as background jobs (``engine/jobs/process_job.py``): progress with
an ETA, cancel, a result (``core/contracts/landscape.py``: ``LandscapeResult`` ``{"path", "summary"}`` or the
sharpness ``{"path", "summary": SharpnessResult}``) and errors in words.

Torch-free at import (the engine port makes these jobs in the GUI's process): the child imports the landscape code.
"""

from __future__ import annotations

from typing import Any

from studio.core.contracts.landscape import (
    LandscapeJobRequest,
    LandscapeResult,
    SharpnessJobRequest,
    SharpnessJobResult,
)
from studio.core.contracts.tasks import task_for
from studio.core.host import threads as thread_policy
from studio.engine.jobs.process_job import TaskJob

Request = LandscapeJobRequest | SharpnessJobRequest


def run_landscape(request: LandscapeJobRequest, progress: Any, emit: Any = None) -> LandscapeResult:
    """The child's landscape: validated, computed (a 2-D one coarse-to-fine, its preview and rows sent as frames),
    saved, and described by its path and summary."""
    from studio.engine.tasks import landscape as compute

    result, path = compute.landscape_of(request.run_dir, request.request, progress=progress, emit=emit)
    summary = result.summary()
    return {"path": str(path), "summary": {
        "kind": summary["kind"], "resolution": summary["resolution"], "center_loss": summary["center_loss"],
        "min_loss": summary["min_loss"], "max_loss": summary["max_loss"], "seconds": result.meta["seconds"]}}


def run_sharpness(request: SharpnessJobRequest, progress: Any) -> SharpnessJobResult:
    from studio.engine.tasks import landscape as compute

    summary = compute.sharpness_of(request.run_dir, request.request, progress=progress)
    return {"path": summary.get("path", ""), "summary": summary}


class LandscapeJob(TaskJob):
    """A landscape or sharpness computation: ``request`` (the contract's job request) travels to the child as it
    is; its ``threads`` (0: the thread policy) decide the job's CPU threads unless ``threads`` is given."""

    def __init__(self, request: Request, threads: int = 0) -> None:
        if not isinstance(request, LandscapeJobRequest | SharpnessJobRequest):
            raise TypeError(f"a landscape job takes a LandscapeJobRequest or SharpnessJobRequest, not a "
                            f"{type(request).__name__}")
        self.request = request
        self.requested_threads = threads or request.request.threads
        spec = task_for(request)
        super().__init__(spec.target, {"request": request}, label=spec.label, kind=spec.kind, frames=spec.frames)

    def _plan(self) -> thread_policy.ThreadPlan:
        return thread_policy.plan(self.requested_threads, spare=1)


def start_landscape_job(request: Request, threads: int = 0) -> LandscapeJob:
    """Start the landscape or sharpness computation ``request`` names (``core/contracts/landscape.py``)."""
    job = LandscapeJob(request, threads)
    job.start()
    return job
