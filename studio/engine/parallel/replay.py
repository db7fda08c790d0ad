"""A measured timeline as it would run on dedicated cores: the timing checks' numbers, robust to other programs.

On a shared CPU another program takes a rank's core for a while: the rank's computations stretch in wall time and
its peers wait for it, so a bubble or a step time measured on the wall clock measures the machine. Each rank also
records the CPU time its thread got in each compute interval (``cpu``; one torch thread per rank) and its share
of a core over them all (``cpu_share``: CPU time ÷ wall time; what an old recording without ``cpu`` falls back on:
wall × share). From them:

- ``dedicated_spans(row)``: per timeline step, its span less the time its computations were descheduled (each
  compute interval's wall time less its CPU time); right where the computations do not overlap (a single
  process, naive model parallelism), and it keeps the transfers' own time (which a busy machine only lengthens).
- ``work_split(row)``: each rank's share of a step's computing in CPU time; ``overlap(row)``: how many ranks
  compute at once, on average, while any does (wall clock: a stretched interval does not move).
- ``replayed_bubbles(row)``: per timeline step, the schedule replayed with each computation lasting its CPU time
  (``cpu``), in the order each rank ran them, a stage's forward of a micro-batch after the previous stage's
  forward of it and its backward after the next stage's backward (transfers take no time): the idle share of the
  stages on dedicated cores.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping

from studio.core.contracts.parallel import Interval, ModeResult
from studio.engine.parallel.timeline import COMPUTE


def shares(row: ModeResult) -> dict[int, float]:
    """Each active rank's share of a core while computing (1.0 where it was not measured)."""
    lanes = sorted({i["rank"] for i in row["timeline"]})
    got = row.get("cpu_share") or []
    out = {}
    for k, rank in enumerate(lanes):
        share = got[k] if k < len(got) else None
        out[rank] = float(share) if share else 1.0
    return out


def cpu_time(interval: Interval, share: Mapping[int, float]) -> float:
    """The CPU time a computation got: measured, or (an old recording) its wall time × its rank's share."""
    if "cpu" in interval:
        return interval["cpu"]
    return (interval["end"] - interval["start"]) * share.get(interval["rank"], 1.0)


def compute_steps(row: ModeResult) -> dict[int, list[Interval]]:
    """The compute intervals of each timeline step, in time order."""
    out: dict[int, list[Interval]] = {}
    for interval in sorted(row["timeline"], key=lambda i: i["start"]):
        if interval["kind"] in COMPUTE:
            out.setdefault(interval["step"], []).append(interval)
    return out


def dedicated_spans(row: ModeResult) -> list[float]:
    """Per timeline step: first to last computation, less the time its computations were descheduled."""
    share = shares(row)
    out = []
    for ivs in compute_steps(row).values():
        span = max(i["end"] for i in ivs) - min(i["start"] for i in ivs)
        stolen = sum((i["end"] - i["start"]) - cpu_time(i, share) for i in ivs)
        out.append(span - stolen)
    return out


def work_split(row: ModeResult) -> list[list[float]]:
    """Per timeline step: each rank's share of the step's computing, in CPU time (1/p each when balanced)."""
    share = shares(row)
    out = []
    for ivs in compute_steps(row).values():
        ranks = sorted({i["rank"] for i in ivs})
        cpu = [sum(cpu_time(i, share) for i in ivs if i["rank"] == r) for r in ranks]
        total = sum(cpu)
        out.append([c / total if total > 0 else 0.0 for c in cpu])
    return out


def overlap(row: ModeResult, kinds: tuple[str, ...] = ("forward", "backward")) -> list[float]:
    """Per timeline step: the ranks' time in ``kinds`` summed ÷ the time at least one is in them (wall clock): 1
    when one computes at a time, p when all compute at once. A stretched interval stays where it was: no program
    competing for the cores makes computations overlap. (The optimizer steps are left out by default: a stage
    updates its weights while the previous one still runs its backward, a small overlap of no interest here.)"""
    out = []
    for all_ivs in compute_steps(row).values():
        ivs = [i for i in all_ivs if i["kind"] in kinds]
        union, reach = 0.0, -math.inf
        for i in ivs:  # in time order
            start = max(i["start"], reach)
            if i["end"] > start:
                union += i["end"] - start
            reach = max(reach, i["end"])
        total = sum(i["end"] - i["start"] for i in ivs)
        out.append(total / union if union > 0 else math.nan)
    return out


def _depends_on(interval: Interval, ranks: list[int]) -> tuple[int, str, int | None] | None:
    """The computation on another rank this one waits for: the previous stage's forward of its micro-batch, the
    next stage's backward of it (None: none, e.g. the first stage's forward or an optimizer step)."""
    rank, kind, mb = interval["rank"], interval["kind"], interval["microbatch"]
    k = ranks.index(rank)
    if kind == "forward" and k > 0:
        return ranks[k - 1], "forward", mb
    if kind == "backward" and k < len(ranks) - 1:
        return ranks[k + 1], "backward", mb
    return None


def replay_step(ivs: list[Interval], share: Mapping[int, float]) -> tuple[float, dict[int, float]]:
    """One step on dedicated cores: (its makespan, each rank's busy seconds); makespan NaN if the recorded order
    cannot be replayed (a computation waits for one that never comes)."""
    ranks = sorted({i["rank"] for i in ivs})
    queues = {r: [i for i in ivs if i["rank"] == r] for r in ranks}
    last_of = {(r, i["kind"], i["microbatch"]): n for r in ranks for n, i in enumerate(queues[r])}
    ends: dict[tuple[int, int], float] = {}  # (rank, position) → end on the replayed clock
    clock = dict.fromkeys(ranks, 0.0)
    pos = dict.fromkeys(ranks, 0)
    moved = True
    while moved:
        moved = False
        for r in ranks:
            while pos[r] < len(queues[r]):
                interval = queues[r][pos[r]]
                ready = clock[r]
                dep = _depends_on(interval, ranks)
                if dep is not None and dep in last_of:
                    upstream = (dep[0], last_of[dep])
                    if upstream not in ends:
                        break  # wait for the other rank's replay to get there
                    ready = max(ready, ends[upstream])
                clock[r] = ready + cpu_time(interval, share)
                ends[(r, pos[r])] = clock[r]
                pos[r] += 1
                moved = True
    if any(pos[r] < len(queues[r]) for r in ranks):
        return math.nan, {}
    busy = {r: sum(cpu_time(i, share) for i in queues[r]) for r in ranks}
    return max(clock.values()), busy


def replayed_bubbles(row: ModeResult) -> list[float]:
    """Per timeline step, the stages' idle share on dedicated cores: 1 − Σ busy ÷ (stages × makespan)."""
    share = shares(row)
    out = []
    for ivs in compute_steps(row).values():
        makespan, busy = replay_step(ivs, share)
        out.append(1 - sum(busy.values()) / (len(busy) * makespan) if busy and makespan > 0 else math.nan)
    return out


def median(values: list[float]) -> float:
    finite = [v for v in values if math.isfinite(v)]
    return statistics.median(finite) if finite else math.nan
