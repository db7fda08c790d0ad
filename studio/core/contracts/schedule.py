"""Scheduling the queue's runs on a simulated GPU cluster (``core/scheduling``): the request, and the result with
every job's intervals per policy. Torch-free; the CLI (``studio schedule``), the task
(``engine/tasks/schedule.py``) and the Parallelism lab's Scheduling page use it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

ARRIVALS = ("recorded", "together")


@dataclass(frozen=True)
class ScheduleRequest:
    """Replay the finished runs matching ``filter`` (``studio runs --filter``'s language; empty: all) of the run
    store at ``home`` (None: the user's) on ``gpus`` simulated GPUs under each of ``policies``.

    ``arrivals``: ``recorded`` (each run arrives when it was queued, or created if it was not) or ``together``
    (all at 0). ``queued_only``: only runs that went through the run queue. ``repeat``: the trace K times over.
    ``quantum``: LAS's decision interval in seconds (None: a tenth of the mean job duration); ``thresholds``:
    LAS's queue bounds in GPU-seconds (empty: continuous LAS).
    """

    gpus: int = 4
    policies: tuple[str, ...] = ("fifo", "sjf", "las")
    filter: str = ""
    arrivals: str = "recorded"
    repeat: int = 1
    queued_only: bool = False  # only the runs that went through the run queue
    quantum: float | None = None
    thresholds: tuple[float, ...] = ()
    home: str | None = None


class JobJSON(TypedDict):
    id: str  # the run's id (``#k`` for the k-th copy with --repeat)
    name: str
    arrival: float  # seconds after the first arrival
    duration: float  # the run's measured wall time
    gpus: int  # its processes (world size)


class PlacedJSON(TypedDict):
    id: str
    start: float
    finish: float
    jct: float  # finish − arrival
    intervals: list[tuple[float, float, list[int]]]  # (start, end, GPUs) of each uninterrupted stretch


class PolicyResult(TypedDict):
    policy: str
    label: str
    mean_jct: float
    median_jct: float
    p95_jct: float
    makespan: float
    utilisation: float
    preemptions: int
    jobs: list[PlacedJSON]


class ScheduleResult(TypedDict):
    gpus: int
    arrivals: str
    repeat: int
    quantum: float
    thresholds: list[float]
    skipped: int  # finished runs without a measured duration
    jobs: list[JobJSON]
    policies: list[PolicyResult]
