"""Scaling studies as background tasks: a power-law fit over finished runs (``engine/tasks/fit_runs.py``) and
the data-parallel measurement of a config (``engine/tasks/dp_scaling.py``). Torch-free."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NotRequired, TypedDict


@dataclass(frozen=True)
class FitRequest:
    """Fit L(x) = a·x^(−b) + c to ``metric`` of ``run_ids`` against ``against`` (steps, samples, params) in the
    run store at ``home`` (None: the user's own)."""

    run_ids: tuple[str, ...]
    against: str = "steps"
    metric: str = "val/loss"
    extrapolate: float = 4.0
    home: str | None = None


class Extrapolation(TypedDict):
    """The fitted loss (and its 95 % band) at ``factor`` times the largest x."""

    x: float
    factor: float
    loss: float
    low: float
    high: float


class PowerLawSummary(TypedDict):
    """``PowerLawFit.summary``: L(x) = a·x^(−b) + c, r², the points and x range fitted, one standard error of
    each of a, b, c, and the extrapolation."""

    a: float
    b: float
    c: float
    r2: float
    points: int
    x_min: float
    x_max: float
    stderr: dict[str, float]  # {"a", "b", "c"}
    predicted: Extrapolation


class Points(TypedDict):
    x: list[float]
    y: list[float]


class Curve(TypedDict):
    x: list[float]
    y: list[float]
    low: list[float]
    high: list[float]


class Fit(PowerLawSummary):
    """One fit: its runs first, then the summary, the data (sorted by x) and the fitted curve with its band."""

    runs: list[str]
    data: Points
    curve: Curve


class FitResult(TypedDict):
    """The fits, with the first fit's ``a, b, c, r2, predicted`` at the top level."""

    against: str
    metric: str
    extrapolate: float
    a: float
    b: float
    c: float
    r2: float
    predicted: Extrapolation
    fits: list[Fit]


@dataclass(frozen=True)
class ScaleRequest:
    """Train ``config`` (``RunConfig.to_dict``) for ``steps`` steps at each process count of ``processes``
    ("1,2,4") and time it."""

    config: dict[str, Any] = field(default_factory=dict)
    processes: str = "1,2"
    steps: int = 60
    target: float = 0.75


class RankOptions(TypedDict):
    """What one measurement's ranks are told (``--options``, JSON)."""

    steps: int
    target: float
    eval_every: int
    probe_every: int
    device: str  # "cpu" or "cuda"
    threads: int
    wait_policy: str  # OMP_WAIT_POLICY ("" : unset)
    mode: NotRequired[str]  # "ddp" or "dp"; set per measurement


class ScaleRow(TypedDict):
    """One measurement (rank 0's, JSON), then its speed-up against the first DDP row."""

    mode: str
    processes: int
    device: str
    threads: int
    global_batch: int
    local_batch: int
    steps: int
    timed_steps: int
    step_ms: float
    fwd_bwd_ms: float
    compute_ms: float
    allreduce_ms: float
    optimizer_ms: float
    samples_per_s: float
    val_acc: float | None  # None: the task has no accuracy (regression)
    val_loss: float | None
    curve: list[list[float | None]]  # [step, val_acc] pairs
    target: float
    steps_to_target: int | None
    optimizer: str
    omp_wait_policy: str
    speedup: NotRequired[float | None]
    efficiency: NotRequired[float | None]
    allreduce_share: NotRequired[float | None]


class ScaleResult(TypedDict):
    rows: list[ScaleRow]
    device: str
    cuda_devices: int
    cores: int
    load_avg: float | None
    busy_cores: float
    omp_wait_policy: str
    model: str
    optimizer: str
    dataset: str
    global_batch: int
    steps: int
    target: float
