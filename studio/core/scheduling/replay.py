"""The discrete-event replay: jobs arrive, a policy orders them, the ones it picks run on free GPUs until they
finish, are preempted or the next decision. Between two events nothing changes, so time jumps from one event
(an arrival, a completion, a quantum tick of a preemptive policy while a job waits) to the next.

A running job keeps its GPUs until it finishes or is preempted (no migration); a job started or resumed takes
the lowest-numbered free GPUs. Preemption is free here (Tiresias pays a checkpoint and restore: seconds against
jobs of hours).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from studio.core.scheduling.jobs import Job, check_jobs
from studio.core.scheduling.policies import Policy, Progress


@dataclass(frozen=True)
class Interval:
    """A stretch of time a job ran without interruption on ``gpus``."""

    start: float
    end: float
    gpus: tuple[int, ...]


@dataclass
class Placed:
    """One job's fate under a policy."""

    job: Job
    intervals: list[Interval] = field(default_factory=list)

    @property
    def start(self) -> float:
        return self.intervals[0].start

    @property
    def finish(self) -> float:
        return self.intervals[-1].end

    @property
    def jct(self) -> float:
        """Job completion time: finish − arrival."""
        return self.finish - self.job.arrival

    @property
    def preemptions(self) -> int:
        return len(self.intervals) - 1


@dataclass
class Schedule:
    """Every job's intervals, in the order of the jobs given."""

    policy: str
    gpus: int
    placed: list[Placed]


def replay(jobs: Sequence[Job], gpus: int, policy: Policy) -> Schedule:
    """Run ``jobs`` on ``gpus`` GPUs under ``policy``."""
    check_jobs(jobs, gpus)
    state = [Progress(j.arrival, j.duration, j.gpus, i) for i, j in enumerate(jobs)]
    placed = [Placed(j) for j in jobs]
    arrivals = sorted(range(len(jobs)), key=lambda i: (jobs[i].arrival, i))
    scale = max(max(j.duration for j in jobs), max(j.arrival for j in jobs), 1.0)
    eps = 1e-9 * scale
    free = list(range(gpus))  # a heap: the lowest free GPU first
    lanes: dict[int, tuple[int, ...]] = {}  # running job → its GPUs
    since: dict[int, float] = {}  # running job → when its current interval began
    present: list[int] = []  # arrived, not finished, not running (waiting)
    t, a = 0.0, 0

    def start(i: int) -> None:
        lanes[i] = tuple(heapq.heappop(free) for _ in range(state[i].gpus))
        since[i] = t

    def stop(i: int) -> None:
        if t > since[i]:
            placed[i].intervals.append(Interval(since[i], t, lanes[i]))
        for g in lanes.pop(i):
            heapq.heappush(free, g)
        del since[i]

    while a < len(arrivals) or present or lanes:
        if not present and not lanes:
            t = max(t, jobs[arrivals[a]].arrival)
        while a < len(arrivals) and jobs[arrivals[a]].arrival <= t + eps:
            present.append(arrivals[a])
            a += 1
        _decide(policy, state, present, lanes, len(free), start, stop)
        # the next event
        nxt = jobs[arrivals[a]].arrival if a < len(arrivals) else math.inf
        if lanes:
            nxt = min(nxt, min(t + state[i].duration - state[i].done for i in lanes))
        if policy.quantum > 0 and present:
            nxt = min(nxt, (math.floor(t / policy.quantum + 1e-9) + 1) * policy.quantum)
        if nxt == math.inf:  # pragma: no cover - check_jobs makes every job fit, so something runs
            raise RuntimeError("the replay stalled: no job can run")
        dt = nxt - t
        t = nxt
        for i in list(lanes):
            s = state[i]
            s.done = min(s.duration, s.done + dt)
            if s.duration - s.done <= eps:
                s.done = s.duration
                stop(i)
    return Schedule(policy.name, gpus, placed)


def _decide(policy: Policy, state: list[Progress], present: list[int], lanes: dict[int, tuple[int, ...]],
            n_free: int, start: Callable[[int], None], stop: Callable[[int], None]) -> None:
    """Start (and, preemptive, stop) jobs as the policy orders them; ``present`` keeps the waiting ones."""
    if policy.preemptive:
        everyone = sorted([*present, *lanes], key=lambda i: policy.key(state[i]))
        room = n_free + sum(state[i].gpus for i in lanes)
        chosen: set[int] = set()
        for i in everyone:
            if state[i].gpus <= room:
                chosen.add(i)
                room -= state[i].gpus
        for i in [i for i in lanes if i not in chosen]:
            stop(i)
        present[:] = [i for i in everyone if i not in chosen]
        for i in everyone:
            if i in chosen and i not in lanes:
                start(i)
        return
    waiting = sorted(present, key=lambda i: policy.key(state[i]))
    left: list[int] = []
    blocked = False
    for i in waiting:
        if not blocked and state[i].gpus <= n_free:
            start(i)
            n_free -= state[i].gpus
        else:
            left.append(i)
            blocked = blocked or policy.blocking
    present[:] = left
