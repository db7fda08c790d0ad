"""A teaching demo as a background job (``engine/jobs/process_job.py``): progress, live frames, cancel and
the demo's result. Torch-free at import: the child imports the demo code (preloaded in the warm back
end, so a demo starts in well under a second)."""

from __future__ import annotations

from typing import Any

from studio.core.vocab import JobKind
from studio.engine.jobs.process_job import TaskJob


def run_demo(name: str, params: dict[str, Any], progress: Any = None, emit: Any = None) -> dict[str, Any]:
    """The child's demo: its parameters checked against the DEMOS registry, then run."""
    from studio.core.demos.catalog import DEMOS

    values = DEMOS.resolve(name, params, "demo")
    return DEMOS.build(name, progress=progress, emit=emit, **values)


def demo_job(name: str, params: dict[str, Any]) -> TaskJob:
    job = TaskJob("studio.engine.tasks.demo:run_demo", {"name": name, "params": dict(params)},
                  label=f"{name.replace('_', ' ')} demo", kind=JobKind.DEMO, frames=True)
    job.demo = name  # type: ignore[attr-defined]
    return job
