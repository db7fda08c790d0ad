"""The input-pipeline sweep as a background task (``engine/tasks.DATALOAD``): ``engine/dataload/sweep.py``."""

from __future__ import annotations

from typing import Any

from studio.core.contracts.dataload import DataloadRequest, DataloadResult
from studio.engine.dataload.sweep import run_sweep


def run(request: DataloadRequest, progress: Any = None) -> DataloadResult:
    """Measure ``request``: the DataLoader configurations and the device-resident path, with the verdict."""
    return run_sweep(request, progress)
