"""Scaling studies as background tasks: a power-law fit over finished runs (``engine/tasks/fit_runs.py``) and
the data-parallel measurement of a config (``engine/tasks/dp_scaling.py``). Torch-free."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypedDict


@dataclass(frozen=True)
class FitRequest:
    """Fit L(x) = a·x^(−b) + c to ``metric`` of ``run_ids`` against ``against`` (steps, samples, params) in the
    run store at ``home`` (None: the user's own)."""

    run_ids: tuple[str, ...]
    against: str = "steps"
    metric: str = "val/loss"
    extrapolate: float = 4.0
    home: str | None = None


class FitResult(TypedDict, total=False):
    against: str
    metric: str
    fits: list[dict[str, Any]]  # [{"runs", "a", "b", "c", "r2", "stderr", "points", "predicted", "data", "curve"}]


@dataclass(frozen=True)
class ScaleRequest:
    """Train ``config`` (``RunConfig.to_dict``) for ``steps`` steps at each process count of ``processes``
    ("1,2,4") and time it."""

    config: dict[str, Any] = field(default_factory=dict)
    processes: str = "1,2"
    steps: int = 60
    target: float = 0.75


class ScaleResult(TypedDict, total=False):
    rows: list[dict[str, Any]]
    model: str
    dataset: str
    global_batch: int
    steps: int
    target: float
    cores: int
    cuda_devices: int
    device: str
    load_avg: float | None
    omp_wait_policy: str
