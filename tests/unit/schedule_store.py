"""A run store holding finished runs for the scheduling tests, written through the real ``RunStore`` and
``RunQueue``: each run is queued (``RunQueue.add``), then finished with a summary (``seconds``, ``world_size``)
as a real run's end records it; the queue's ``added`` time is then set so arrivals are known to the test."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from studio.core.config import RunConfig
from studio.core.runs.queue import RunQueue
from studio.core.runs.store import RunStore

# (name, queued at (s after the first), seconds, processes, finished?)
RUNS = (("short-a", 0.0, 10.0, 1, True), ("long", 1.0, 100.0, 1, True), ("wide", 2.0, 30.0, 2, True),
        ("short-b", 3.0, 5.0, 1, True), ("never-ran", 4.0, 50.0, 1, False))


def finished_store(home: Path, runs: tuple = RUNS, t0: float = 1.7e9) -> dict[str, str]:
    """The store at ``home`` with ``runs``; name → run id."""
    store = RunStore(home)
    queue = RunQueue(store)
    ids: dict[str, str] = {}
    for name, at, seconds, processes, finished in runs:
        info = queue.add(RunConfig().with_overrides([f"hardware.processes={processes}"]), name)
        ids[name] = info.id
        if finished:
            store.set_status(info.id, "finished", summary={"seconds": seconds, "world_size": processes,
                                                            "steps": 10})
        with sqlite3.connect(store.db_path) as db:
            db.execute("UPDATE queue SET added=?, state='done' WHERE run_id=?", (t0 + at, info.id))
    queue.close()
    store.close()
    return ids
