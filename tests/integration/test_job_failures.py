"""A worker that dies: the run is marked failed with words, the other ranks are torn down."""

import os
import signal
import time

from studio.core.config import RunConfig
from studio.core.runs.store import RunStore
from studio.engine.training.launcher import launch


def test_killed_rank_fails_the_run_and_tears_down_the_others():
    cfg = RunConfig().with_overrides(["hardware.processes=2", "train.epochs=100"])
    job = launch(cfg, RunStore())
    deadline = time.monotonic() + 120
    while job.progress["step"] == 0 and time.monotonic() < deadline:
        job.poll(0.2)
    assert job.progress["step"] > 0
    os.kill(job.processes[1].pid, signal.SIGKILL)
    job.wait(timeout=60)
    assert job.state == "failed" and job.exit_code == 3
    assert all(not p.is_alive() for p in job.processes)
    run = RunStore().get(job.run_id)
    assert run.status == "failed"
    assert "rank 1" in run.message or "rank" in run.message.lower() or "connection" in run.message.lower(), run.message


def test_pause_and_resume_keep_training():
    cfg = RunConfig().with_overrides(["data.name=moons", "train.epochs=400", "train.batch_size=32"])
    job = launch(cfg, RunStore())
    while job.progress["step"] == 0:
        job.poll(0.2)
    job.pause()
    seen_paused = False
    deadline = time.monotonic() + 30
    while not seen_paused and time.monotonic() < deadline:
        seen_paused = any(m.get("status") == "paused" for m in job.poll(0.2))
    assert seen_paused  # sent by the trainer after its last progress, on the same queue: the step is final now
    step = job.progress["step"]
    time.sleep(1.5)  # the behaviour under test: a paused job does not step in this window
    job.poll(0.1)
    assert job.progress["step"] == step  # nothing moves while paused
    job.resume()
    deadline = time.monotonic() + 30
    while job.progress["step"] == step and time.monotonic() < deadline:
        job.poll(0.2)
    assert job.progress["step"] > step
    job.stop()
    assert job.wait(timeout=30) == "stopped"
