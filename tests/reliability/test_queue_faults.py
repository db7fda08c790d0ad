"""The queue's scheduler killed outright (``kill -9`` of it or of its process group): its claim is seen as dead at
once (pid and start time, not a timeout), the next `studio queue add` starts a new scheduler, the run it owned
does not stay "running" and its semaphores are freed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from studio.core.host import procs
from studio.core.runs.queue import RunQueue
from studio.core.runs.store import LIVE, RunStore
from tests.conftest import run_cli, wait_for
from tests.reliability.conftest import LONG, gone, semaphores


def test_a_killed_lease_holder_is_seen_as_gone_at_once(tmp_path):
    queue = RunQueue(RunStore(tmp_path))
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])  # a live holder, killed below
    try:
        assert queue.take_lease(holder.pid) and queue.lease_holder() == holder.pid
        assert not queue.take_lease(os.getpid())  # alive: it keeps the queue
    finally:
        holder.kill()
        holder.wait()
    assert queue.lease_holder() is None  # no 15 s wait: its pid is gone
    assert queue.take_lease(os.getpid()) and queue.lease_holder() == os.getpid()


def test_a_reused_pid_does_not_keep_a_dead_schedulers_lease(tmp_path):
    queue = RunQueue(RunStore(tmp_path))
    assert queue.take_lease(os.getpid())
    pid, start = procs.identity(os.getpid()).split(":")
    queue._db.execute("UPDATE queue_lease SET ident=?", (f"{procs.host()}/{pid}:{int(start) + 1}",))
    assert queue.lease_holder() is None  # the same pid, started at another time: another program


def _scheduler_pid(home: Path) -> int | None:
    queue = RunQueue(RunStore(home))
    try:
        return queue.lease_holder()
    finally:
        queue.close()


def test_group_killed_scheduler_frees_its_run_and_a_new_one_serves(home):
    env = dict(os.environ, STUDIO_HOME=str(home))
    first = run_cli("queue", "add", *LONG, "--name", "long", "--json", env=env)
    assert first.returncode == 0, first.stderr
    wait_for(lambda: any(r.status == "running" for r in RunStore(home).list()), 90, "the queued run to start")
    run_id = next(r.id for r in RunStore(home).list() if r.status == "running")
    sched = _scheduler_pid(home)
    assert sched is not None
    sems = semaphores(home, run_id)
    os.killpg(os.getpgid(sched), signal.SIGKILL)
    assert gone([sched], 10)
    store = RunStore(home)
    wait_for(lambda: store.get(run_id).status not in LIVE, 10, "the killed scheduler's run to be settled")
    assert store.get(run_id).status == "interrupted"
    assert not any(Path("/dev/shm", "sem." + s.lstrip("/")).exists() for s in sems)
    started = time.monotonic()
    served = run_cli("queue", "run", "--idle-exit", "0.2", "--cold", env=env, timeout=60)
    assert served.returncode == 0 and "another scheduler" not in served.stderr, served.stderr
    assert f"scheduler {sched}" not in served.stderr and "serving" in served.stderr
    second = run_cli("queue", "add", "--set", "data.name=moons", "--set", "data.n_samples=200", "--set",
                     "train.epochs=1", "--name", "next", "--json", env=env)
    assert second.returncode == 0 and "scheduler started" in second.stderr, second.stderr
    assert time.monotonic() - started < 14  # not the old 15 s lease timeout
    wait_for(lambda: RunStore(home).list()[0].status == "finished", 90, "the next run to be served")


def test_a_config_that_cannot_train_is_refused_when_queued_not_when_started(tmp_path):
    env = {"STUDIO_HOME": str(tmp_path)}
    added = run_cli("queue", "add", "--no-start", "--set", "data.name=fortunes", "--set", "model.name=gpt_lm",
                    "--set", "model.d_model=30", env=env)
    assert added.returncode == 2 and "heads (4) must divide d_model (30)" in added.stderr
    swept = run_cli("queue", "sweep", "--no-start", "--set", "data.name=fortunes", "--set", "model.name=gpt_lm",
                    "--vary", "model.d_model=32,30", env=env)
    assert swept.returncode == 2 and "must divide d_model (30)" in swept.stderr
    assert RunStore(tmp_path).list() == []  # neither the bad point nor the good one before it was queued
