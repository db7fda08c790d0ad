"""Jobs from the run store's finished runs: duration = the run's measured wall time (its summary's ``seconds``,
else the queue's start-to-end), GPUs = its processes (the world size it ran with, ≥ 1), arrival = when it was
queued (the queue's ``added``), else when it was created; times start at the first arrival."""

from __future__ import annotations

from typing import Any

from studio.core.errors import ConfigError
from studio.core.runs.store import RunInfo, RunStore
from studio.core.scheduling.jobs import Job

FINISHED = "finished"


def finished_runs(store: RunStore, expression: str = "") -> list[RunInfo]:
    """The finished runs matching ``expression`` (the run list's filter language), oldest first."""
    from studio.core.runs import run_filter
    from studio.core.runs.names import shown_names

    runs = [r for r in store.list() if r.status == FINISHED]
    if expression.strip():
        params = store.all_params()
        notes = store.notes()
        names = shown_names(store)  # numbered among all the store's runs, as every view names them
        facts = [run_filter.facts_of(r, params.get(r.id, {}), notes.get(r.id, ""), names.get(r.id, ""))
                 for r in runs]
        keep = {f.id for f in run_filter.parse(expression, run_filter.known_keys(facts)).select(facts)}
        runs = [r for r in runs if r.id in keep]
    return sorted(runs, key=lambda r: (r.created, r.id))


def _queue_times(store: RunStore) -> dict[str, tuple[float | None, float | None, float | None]]:
    """run id → (added, started, ended) of every run that went through the queue."""
    from studio.core.runs.queue import RunQueue

    queue = RunQueue(store)
    try:
        return {e.run_id: (e.added, e.started, e.ended) for e in queue.entries(include_over=True)}
    finally:
        queue.close()


def _processes(run: RunInfo) -> int:
    size = run.summary.get("world_size")
    if isinstance(size, int) and size >= 1:
        return size
    try:
        return max(1, int(run.run_config.hardware.processes))
    except Exception:  # noqa: BLE001 - an unreadable config: one process
        return 1


def jobs_from_runs(store: RunStore, expression: str = "", arrivals: str = "recorded",
                   queued_only: bool = False) -> tuple[list[Job], int]:
    """The jobs, and how many matching finished runs were left out for want of a measured duration
    (``queued_only``: only the runs that went through the run queue)."""
    if arrivals not in ("recorded", "together"):
        raise ConfigError(f"--arrivals is recorded or together, not {arrivals!r}")
    runs = finished_runs(store, expression)
    queue = _queue_times(store)
    if queued_only:
        runs = [r for r in runs if r.id in queue]
    where = (" that went through the queue" if queued_only else "") + (
        f" matching {expression!r}" if expression.strip() else "")
    if not runs:
        raise ConfigError(f"no finished run{where} in {store.home}: finish some runs (studio queue run) or "
                          "change the filter")
    raw: list[tuple[RunInfo, float, float]] = []
    for run in runs:
        added, started, ended = queue.get(run.id, (None, None, None))
        seconds: Any = run.summary.get("seconds")
        if not (isinstance(seconds, (int, float)) and seconds > 0) and started and ended and ended > started:
            seconds = ended - started
        if isinstance(seconds, (int, float)) and seconds > 0:
            raw.append((run, float(seconds), float(added if added else run.created)))
    if not raw:
        raise ConfigError(f"none of the {len(runs)} finished runs{where} recorded how long it ran")
    first = min(r[2] for r in raw)
    jobs = [Job(run.id, 0.0 if arrivals == "together" else at - first, seconds, _processes(run), run.name)
            for run, seconds, at in raw]
    return jobs, len(runs) - len(raw)
