"""The discrete-event replay: jobs arrive, a policy orders them, the ones it picks run on free GPUs until they
finish, are preempted or the next decision. Between two events nothing changes, so time jumps from one event
(an arrival, a completion, a quantum tick of a preemptive policy while a job waits) to the next.

A running job keeps its GPUs until it finishes or is preempted (no migration); a job started or resumed takes
the lowest-numbered free GPUs. Preemption is free here (Tiresias pays a checkpoint and restore: seconds against
jobs of hours).
"""

from __future__ import annotations

import bisect
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
    """Run ``jobs`` on ``gpus`` GPUs under ``policy``.

    The waiting jobs stay sorted by the policy's key (a waiting job's key does not change: it only changes while
    the job runs), so a decision reads them in order and stops once the GPUs are full."""
    check_jobs(jobs, gpus)
    state = [Progress(j.arrival, j.duration, j.gpus, i) for i, j in enumerate(jobs)]
    placed = [Placed(j) for j in jobs]
    arrivals = sorted(range(len(jobs)), key=lambda i: (jobs[i].arrival, i))
    scale = max(max(j.duration for j in jobs), max(j.arrival for j in jobs), 1.0)
    eps = 1e-9 * scale
    free = list(range(gpus))  # a heap: the lowest free GPU first
    lanes: dict[int, tuple[int, ...]] = {}  # running job → its GPUs
    since: dict[int, float] = {}  # running job → when its current interval began
    waiting: list[tuple[tuple[float, ...], int]] = []  # (key, job) of the jobs arrived and not running, sorted
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

    while a < len(arrivals) or waiting or lanes:
        if not waiting and not lanes:
            t = max(t, jobs[arrivals[a]].arrival)
        while a < len(arrivals) and jobs[arrivals[a]].arrival <= t + eps:
            i = arrivals[a]
            bisect.insort(waiting, (policy.key(state[i]), i))
            a += 1
        if policy.preemptive:
            _preempt(policy, state, waiting, lanes, len(free), start, stop)
        else:
            _fill(policy, state, waiting, len(free), start)
        # the next event
        nxt = jobs[arrivals[a]].arrival if a < len(arrivals) else math.inf
        if lanes:
            nxt = min(nxt, min(t + state[i].duration - state[i].done for i in lanes))
        if policy.quantum > 0 and waiting:
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


def _fill(policy: Policy, state: list[Progress], waiting: list[tuple[tuple[float, ...], int]], n_free: int,
          start: Callable[[int], None]) -> None:
    """Non-preemptive: start waiting jobs in order while they fit (a blocking policy stops at the first that
    does not; the others skip it)."""
    started: list[int] = []
    for pos, (_key, i) in enumerate(waiting):
        if n_free == 0:
            break
        if state[i].gpus <= n_free:
            start(i)
            n_free -= state[i].gpus
            started.append(pos)
        elif policy.blocking:
            break
    for pos in reversed(started):
        del waiting[pos]


def _preempt(policy: Policy, state: list[Progress], waiting: list[tuple[tuple[float, ...], int]],
             lanes: dict[int, tuple[int, ...]], n_free: int, start: Callable[[int], None],
             stop: Callable[[int], None]) -> None:
    """Preemptive: the jobs that fit in the policy's order (running and waiting alike) run; running jobs left out
    are stopped and wait again under their new key."""
    running = sorted((policy.key(state[i]), i) for i in lanes)
    room = n_free + sum(state[i].gpus for i in lanes)
    chosen: set[int] = set()
    starting: list[tuple[tuple[float, ...], int]] = []
    for entry in heapq.merge(waiting, running):
        if room == 0:
            break
        i = entry[1]
        if state[i].gpus <= room:
            chosen.add(i)
            room -= state[i].gpus
            if i not in lanes:
                starting.append(entry)
    for _key, i in running:
        if i not in chosen:
            stop(i)
            bisect.insort(waiting, (policy.key(state[i]), i))
    for entry in starting:
        del waiting[bisect.bisect_left(waiting, entry)]
        start(entry[1])
