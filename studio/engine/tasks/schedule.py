"""Scheduling the queue's runs on a simulated GPU cluster as a background task (``engine/tasks.SCHEDULE``): cheap
for the runs of one store, but a repeated trace of thousands of jobs takes seconds, so the window's thread stays
free. Torch-free: the work is ``core/scheduling``."""

from __future__ import annotations

from typing import Any

from studio.core.contracts.progress import as_progress
from studio.core.contracts.schedule import ScheduleRequest, ScheduleResult


def run(request: ScheduleRequest, progress: Any = None) -> ScheduleResult:
    """Replay the request's finished runs under its policies (ConfigError for bad input, before any replay)."""
    from studio.core.scheduling.study import run_study

    return run_study(request, progress=as_progress(progress))
