"""The model summary (layers, shapes, parameters, FLOPs, memory) as a background job: building the model needs
torch, which the GUI never imports (``engine/jobs/process_job.py``)."""

from __future__ import annotations

from typing import Any

from studio.core.contracts.jobs import SummaryRequest, SummaryWithMemory


def run(request: SummaryRequest, progress: Any = None) -> SummaryWithMemory:
    """The background task (``engine/tasks.SUMMARY``): the model summary of a config (``RunConfig.to_dict``) with
    its memory view (one training step measured: core/estimates/memory.py)."""
    from studio.core.config import RunConfig
    from studio.core.estimates.model_summary import summarize_config

    if progress is not None:
        progress(0.1, "building the model")
    return summarize_config(RunConfig.from_dict(request.config), memory=True)


def ready(progress: Any = None) -> dict[str, bool]:
    """A job that only makes torch and the training code ready (the start-up cost of a new process: the
    benchmark tests/benchmarks/test_job_start.py and the warm back end's check)."""
    import sys

    preloaded = "torch" in sys.modules
    import studio.engine.training.worker  # noqa: F401 - torch, models, optimizers, datasets

    return {"preloaded": preloaded}
