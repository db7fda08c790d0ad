"""A teaching demo as a background job (``engine/jobs/process_job.py``): progress, live frames, cancel and
the demo's result. Torch-free at import: the child imports the demo code (preloaded in the warm back
end, so a demo starts in well under a second)."""

from __future__ import annotations

from typing import Any

from studio.core.contracts.jobs import DemoRequest, DemoResult
from studio.engine.jobs.process_job import TaskJob
from studio.engine.tasks import DEMO, task_job


def run(request: DemoRequest, progress: Any = None, emit: Any = None) -> DemoResult:
    """The background task (``engine/tasks.DEMO``): the parameters checked against the DEMOS registry, then run."""
    from studio.core.demos.catalog import DEMOS

    values = DEMOS.resolve(request.name, request.params, "demo")
    return DEMOS.build(request.name, progress=progress, emit=emit, **values)


def demo_job(name: str, params: dict[str, Any]) -> TaskJob:
    job = task_job(DEMO, DemoRequest(name, dict(params)), label=f"{name.replace('_', ' ')} demo")
    job.demo = name
    return job
