"""A teaching demo as a background job (``engine/jobs/process_job.py``): progress, live frames, cancel and
the demo's result. Torch-free at import: the child imports the demo code (preloaded in the warm back
end, so a demo starts in well under a second).

A live demo (``DemoRequest.live``, a demo tagged "steerable") also reads the job's control queue: the view's
parameter changes, pause, resume and step reach the running demo through ``controls`` (``core/demos/live.py``).
"""

from __future__ import annotations

from typing import Any

from studio.core.contracts.jobs import DemoRequest, DemoResult
from studio.core.contracts.tasks import DEMO
from studio.core.errors import ConfigError
from studio.engine.jobs.process_job import TaskJob, task_job

STEERABLE = "steerable"  # the DEMOS tag of a demo whose builder takes ``controls`` (a live run)


def run(request: DemoRequest, progress: Any = None, emit: Any = None, controls: Any = None) -> DemoResult:
    """The background task (``engine/tasks.DEMO``): the parameters checked against the DEMOS registry, then run."""
    from studio.core.demos.catalog import DEMOS

    values = DEMOS.resolve(request.name, request.params, "demo")
    if request.live:
        if STEERABLE not in DEMOS.get(request.name).tags:
            raise ConfigError(f"the {request.name} demo cannot run live (only: "
                              + ", ".join(e.name for e in DEMOS if STEERABLE in e.tags) + ")")
        values["controls"] = controls or (lambda wait_s=0.0: [])
    return DEMOS.build(request.name, progress=progress, emit=emit, **values)


def demo_job(request: DemoRequest) -> TaskJob:
    """The demo's job (not started); a live one runs until stopped and takes ``set_params``/pause/resume/step."""
    job = task_job(DEMO, request, label=f"{request.name.replace('_', ' ')} demo")
    job.controls = request.live
    job.demo = request.name
    return job
