"""What a schedule achieved: job completion times (mean, median, 95th percentile), makespan, GPU utilisation."""

from __future__ import annotations

from typing import TypedDict

import numpy as np

from studio.core.scheduling.replay import Schedule


class ScheduleStats(TypedDict):
    mean_jct: float  # seconds
    median_jct: float
    p95_jct: float
    makespan: float  # the first arrival to the last finish
    utilisation: float  # GPU-seconds used ÷ (GPUs × makespan)
    preemptions: int


def summarise(schedule: Schedule) -> ScheduleStats:
    jct = np.array([p.jct for p in schedule.placed], dtype=float)
    first = min(p.job.arrival for p in schedule.placed)
    makespan = max(p.finish for p in schedule.placed) - first
    used = sum(p.job.service for p in schedule.placed)
    return {"mean_jct": float(jct.mean()), "median_jct": float(np.median(jct)),
            "p95_jct": float(np.percentile(jct, 95)), "makespan": float(makespan),
            "utilisation": float(used / (schedule.gpus * makespan)) if makespan > 0 else 0.0,
            "preemptions": sum(p.preemptions for p in schedule.placed)}
