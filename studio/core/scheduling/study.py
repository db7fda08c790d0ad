"""A request → its result: the jobs (from the run store, or given), replayed under each policy, with their
statistics and every job's intervals. What ``studio schedule``, the task and the Scheduling page run."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from studio.core.contracts.schedule import ARRIVALS, JobJSON, PolicyResult, ScheduleRequest, ScheduleResult
from studio.core.errors import ConfigError
from studio.core.scheduling.jobs import Job, check_jobs, repeated
from studio.core.scheduling.policies import make_policy, parse_policies
from studio.core.scheduling.replay import Schedule, replay
from studio.core.scheduling.stats import summarise

QUANTUM_SHARE = 0.1  # LAS's default quantum: this share of the mean job duration
MAX_GPUS = 100_000  # a simulated cluster's GPUs (each is a lane of the replay)
MAX_JOBS = 10_000  # jobs in a replay (the trace times its repeats): the replay's time grows faster than linearly


def check_request(request: ScheduleRequest) -> None:
    """One sentence for a request that cannot mean anything, before any store is read."""
    if request.gpus < 1:
        raise ConfigError(f"a cluster needs at least 1 GPU, not {request.gpus}")
    if request.gpus > MAX_GPUS:
        raise ConfigError(f"a simulated cluster has at most {MAX_GPUS:,} GPUs, not {request.gpus:,}")
    if request.arrivals not in ARRIVALS:
        raise ConfigError(f"--arrivals is {' or '.join(ARRIVALS)}, not {request.arrivals!r}")
    if request.repeat < 1:
        raise ConfigError(f"--repeat takes 1 or more, not {request.repeat}")
    if request.repeat > MAX_JOBS:
        raise ConfigError(f"the trace can be repeated at most {MAX_JOBS:,} times, not {request.repeat:,}")
    if request.quantum is not None and not request.quantum > 0:
        raise ConfigError(f"LAS's quantum is a time > 0 seconds, not {request.quantum}")
    parse_policies(",".join(request.policies))


def default_quantum(jobs: Sequence[Job]) -> float:
    return QUANTUM_SHARE * sum(j.duration for j in jobs) / len(jobs)


def simulate(jobs: Sequence[Job], gpus: int, policies: Sequence[str], quantum: float | None = None,
             thresholds: Sequence[float] = (), progress: Any = None) -> list[tuple[Schedule, PolicyResult]]:
    """Each policy's schedule and its result row."""
    check_jobs(jobs, gpus)
    q = quantum if quantum is not None else default_quantum(jobs)
    out = []
    for k, name in enumerate(policies):
        if progress is not None:
            progress(k / len(policies), f"replaying {len(jobs)} jobs under {name}")
        policy = make_policy(name, quantum=q, thresholds=tuple(thresholds))
        schedule = replay(jobs, gpus, policy)
        row: PolicyResult = {"policy": name, "label": policy.label, **summarise(schedule),
                             "jobs": [{"id": p.job.id, "start": p.start, "finish": p.finish, "jct": p.jct,
                                       "intervals": [(i.start, i.end, list(i.gpus)) for i in p.intervals]}
                                      for p in schedule.placed]}
        out.append((schedule, row))
    if progress is not None:
        progress(1.0, "replayed")
    return out


def run_study(request: ScheduleRequest, progress: Any = None) -> ScheduleResult:
    """The finished runs of the request's store, replayed under its policies."""
    from studio.core.runs.store import RunStore
    from studio.core.scheduling.from_runs import jobs_from_runs

    check_request(request)
    policies = parse_policies(",".join(request.policies))
    store = RunStore(request.home)
    try:
        jobs, skipped = jobs_from_runs(store, request.filter, request.arrivals, request.queued_only)
    finally:
        store.close()
    if jobs and len(jobs) * request.repeat > MAX_JOBS:
        raise ConfigError(f"{len(jobs):,} runs repeated {request.repeat:,} times are {len(jobs) * request.repeat:,} "
                          f"jobs; a replay takes at most {MAX_JOBS:,} (repeat at most {MAX_JOBS // len(jobs):,} times)")
    jobs = repeated(jobs, request.repeat)
    check_jobs(jobs, request.gpus)
    quantum = request.quantum if request.quantum is not None else default_quantum(jobs)
    rows = [row for _, row in simulate(jobs, request.gpus, policies, quantum, request.thresholds, progress)]
    listed: list[JobJSON] = [{"id": j.id, "name": j.name, "arrival": j.arrival, "duration": j.duration,
                              "gpus": j.gpus} for j in jobs]
    return {"gpus": request.gpus, "arrivals": request.arrivals, "repeat": request.repeat, "quantum": quantum,
            "thresholds": list(request.thresholds), "skipped": skipped, "jobs": listed, "policies": rows}
