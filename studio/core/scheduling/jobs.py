"""A job to schedule: when it arrives, how long it runs on its GPUs, how many GPUs it needs (all at once)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from studio.core.errors import ConfigError


@dataclass(frozen=True)
class Job:
    """``duration`` is the wall time it runs holding ``gpus`` GPUs (its service is ``duration × gpus``)."""

    id: str
    arrival: float
    duration: float
    gpus: int = 1
    name: str = ""

    @property
    def service(self) -> float:
        """GPU-seconds: what the job consumes in total."""
        return self.duration * self.gpus


def check_jobs(jobs: Sequence[Job], gpus: int) -> None:
    """One sentence (``ConfigError``) for a cluster that cannot run these jobs."""
    if gpus < 1:
        raise ConfigError(f"a cluster needs at least 1 GPU, not {gpus}")
    if not jobs:
        raise ConfigError("there are no jobs to schedule")
    if len({j.id for j in jobs}) != len(jobs):
        raise ConfigError("two jobs share an id; each job needs its own")
    widest = max(jobs, key=lambda j: j.gpus)
    if widest.gpus > gpus:
        raise ConfigError(f"job {widest.name or widest.id} needs {widest.gpus} GPUs but the cluster has only "
                          f"{gpus}: give the cluster {widest.gpus} GPUs or more")
    for j in jobs:
        if j.gpus < 1 or not j.duration > 0 or not j.arrival >= 0:
            raise ConfigError(f"job {j.name or j.id} is not a job: it needs ≥ 1 GPU, a duration > 0 and an "
                              f"arrival ≥ 0 (it has {j.gpus}, {j.duration}, {j.arrival})")


def repeated(jobs: Sequence[Job], times: int) -> list[Job]:
    """The trace ``times`` times over: copy k arrives k × (the span of the arrivals + the mean gap) later,
    so the copies follow each other as the original jobs did (with arrivals together, all arrive together)."""
    if times < 1:
        raise ConfigError(f"--repeat takes 1 or more, not {times}")
    if times == 1:
        return list(jobs)
    arrivals = sorted(j.arrival for j in jobs)
    span = arrivals[-1] - arrivals[0]
    shift = span + (span / (len(arrivals) - 1) if len(arrivals) > 1 else 0.0)
    return [Job(f"{j.id}#{k + 1}" if k else j.id, j.arrival + k * shift, j.duration, j.gpus,
                f"{j.name or j.id} #{k + 1}" if k else j.name)
            for k in range(times) for j in jobs]
