"""The model summary (layers, shapes, parameters, FLOPs) as a background job: building the model needs
torch, which the GUI never imports (``engine/process_job.py``)."""

from __future__ import annotations

from typing import Any

from studio.engine.process_job import TaskJob


def run_summary(config: dict[str, Any], progress: Any = None) -> dict[str, Any]:
    """The child's model summary of a config (as ``RunConfig.to_dict``)."""
    from studio.core.config import RunConfig
    from studio.core.models.summary import summarize_config

    if progress is not None:
        progress(0.1, "building the model")
    return summarize_config(RunConfig.from_dict(config))


def summary_job(config: dict[str, Any]) -> TaskJob:
    return TaskJob("studio.engine.summary_job:run_summary", {"config": config}, label="model summary",
                   kind="summary")
