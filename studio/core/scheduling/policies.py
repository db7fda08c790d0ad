"""The scheduling policies: each is an order on the jobs present (the first in the order is served first), whether
it may preempt a running job, and how it treats a job that does not fit on the free GPUs.

- ``fifo``: arrival order, non-preemptive, strict (a job that does not fit blocks those behind it), as
  Apache YARN's capacity scheduler in Tiresias' comparison.
- ``sjf``: shortest job first (knows every duration), non-preemptive; a job that does not fit is skipped.
- ``srtf``: shortest remaining time first (knows durations), preemptive at every arrival and completion.
- ``las``: least attained service, Tiresias' 2D-LAS (Gu et al., NSDI 2019): the priority is the GPU-seconds a
  job has received (GPUs × time), without knowing any duration; preemptive, re-decided every ``quantum`` seconds.
  With ``thresholds`` (GPU-seconds) it is their *discretized* 2D-LAS: queue k holds the jobs whose attained
  service is below ``thresholds[k]`` (and above the one before), higher queues first, first come first served
  inside a queue; without, the continuous LAS (least attained first), which shares the GPUs round-robin among
  jobs of equal service, like processor sharing.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from studio.core.errors import ConfigError

NAMES = ("fifo", "sjf", "srtf", "las")
LABELS = {"fifo": "FIFO", "sjf": "SJF", "srtf": "SRTF", "las": "LAS (Tiresias)"}


@dataclass(slots=True)
class Progress:
    """What a policy sees of a job: its arrival, duration, GPUs, its index, and the wall time it has run so far
    (the replay advances ``done``)."""

    arrival: float
    duration: float
    gpus: int
    index: int
    done: float = 0.0

    @property
    def attained(self) -> float:
        return self.done * self.gpus


Key = Callable[[Progress], tuple[float, ...]]
DIGITS = 6  # service compared to the microsecond: float noise from summing intervals must not reorder equal jobs


@dataclass(frozen=True)
class Policy:
    name: str
    key: Key
    preemptive: bool = False
    blocking: bool = False  # a job that does not fit waits, and so does every job after it
    quantum: float = 0.0  # > 0: re-decide every quantum seconds (LAS)

    @property
    def label(self) -> str:
        return LABELS.get(self.name, self.name)


def _fifo(p: Progress) -> tuple[float, ...]:
    return (p.arrival, p.index)


def _sjf(p: Progress) -> tuple[float, ...]:
    return (p.duration, p.arrival, p.index)


def _srtf(p: Progress) -> tuple[float, ...]:
    return (round(p.duration - p.done, DIGITS), p.arrival, p.index)


def _las(p: Progress) -> tuple[float, ...]:
    return (round(p.attained, DIGITS), p.arrival, p.index)


def _discretized(thresholds: Sequence[float]) -> Key:
    bounds = sorted(thresholds)

    def key(p: Progress) -> tuple[float, ...]:
        # a job whose service reaches a threshold moves to the next queue (bisect_right: at the bound, below)
        return (bisect.bisect_right(bounds, round(p.attained, DIGITS)), p.arrival, p.index)

    return key


def make_policy(name: str, quantum: float = 1.0, thresholds: Sequence[float] | None = None) -> Policy:
    """The policy ``name`` (``NAMES``); ``quantum`` and ``thresholds`` are LAS's."""
    if name == "fifo":
        return Policy("fifo", _fifo, blocking=True)
    if name == "sjf":
        return Policy("sjf", _sjf)
    if name == "srtf":
        return Policy("srtf", _srtf, preemptive=True)
    if name == "las":
        if not quantum > 0:
            raise ConfigError(f"LAS's quantum is a time > 0 seconds, not {quantum}")
        if thresholds and any(not t > 0 for t in thresholds):
            raise ConfigError(f"LAS's queue thresholds are GPU-seconds > 0, not {list(thresholds)}")
        return Policy("las", _discretized(thresholds) if thresholds else _las, preemptive=True, quantum=quantum)
    raise ConfigError(f"no scheduling policy named {name!r}; there are: {', '.join(NAMES)}")


def parse_policies(text: str) -> tuple[str, ...]:
    """``"fifo,sjf,las"`` → its names, each checked, in order, without repeats."""
    names = tuple(dict.fromkeys(w.strip().lower() for w in text.split(",") if w.strip()))
    if not names:
        raise ConfigError(f"give at least one policy of {', '.join(NAMES)} (comma-separated)")
    for n in names:
        if n not in NAMES:
            raise ConfigError(f"no scheduling policy named {n!r}; there are: {', '.join(NAMES)}")
    return names
