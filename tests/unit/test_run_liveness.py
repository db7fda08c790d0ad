"""Runs whose processes cannot be checked here (torchrun, Slurm, another machine) are judged by rank 0's
heartbeat: silent for more than STALE_S (a minute), a run that says running is listed as interrupted; rank 0's
heartbeat comes from a thread of its own (engine/training/worker.py StoreHeartbeat), so a slow step does not
silence it."""

from __future__ import annotations

import time

from studio.core.config import RunConfig
from studio.core.runs.store import STALE_S, RunStore
from tests.conftest import TINY_CONFIG, wait_for


def running(store: RunStore, heartbeat_age: float) -> str:
    run = store.create_run(RunConfig.from_toml(TINY_CONFIG))
    store.set_status(run.id, "running")
    then = time.time() - heartbeat_age
    with store._db:  # no recorded pids (a torchrun rank 0 records none): only the heartbeat tells
        store._db.execute("UPDATE runs SET heartbeat=?, updated=? WHERE id=?", (then, then, run.id))
    return run.id


def recorded_beat(store: RunStore, run_id: str) -> float:
    """The heartbeat as recorded, read without judging the run (a read of a silent run settles it interrupted)."""
    return store._db.execute("SELECT heartbeat FROM runs WHERE id=?", (run_id,)).fetchone()[0]


def test_a_silent_run_is_interrupted_within_a_minute_and_a_beating_one_is_running(tmp_path):
    assert STALE_S <= 60
    store = RunStore(tmp_path)
    silent, beating = running(store, 75), running(store, 20)
    listed = {r.id: r for r in RunStore(tmp_path).list()}
    assert listed[silent].status == "interrupted" and "ended without a word" in listed[silent].message
    assert listed[beating].status == "running"
    assert store.get(silent).status == "interrupted"  # settled in the store, not only shown


def test_the_heartbeat_thread_beats_while_the_trainer_is_busy_and_stops(tmp_path):
    from studio.engine.training.worker import StoreHeartbeat

    store = RunStore(tmp_path)
    run_id = running(store, 3600)
    beat = StoreHeartbeat(store, run_id, every=0.05).start()
    try:  # the main thread only waits (a long step): the thread beats anyway
        wait_for(lambda: time.time() - recorded_beat(store, run_id) < 1, 10, "a first beat")
        first = RunStore(tmp_path).get(run_id)
        wait_for(lambda: recorded_beat(store, run_id) > first.heartbeat, 10, "a later beat")
        second = RunStore(tmp_path).get(run_id)
    finally:
        beat.stop()
    assert first.status == "running" and time.time() - first.heartbeat < 1
    assert second.heartbeat > first.heartbeat
    assert not beat._thread.is_alive()
    stopped_at = RunStore(tmp_path).get(run_id).heartbeat
    time.sleep(0.2)  # four beat intervals with no beat: the behaviour under test, not a wait for something
    assert RunStore(tmp_path).get(run_id).heartbeat == stopped_at  # no beat after stop()
