"""A live demo job in a real child process: the parent's set_params, pause and step reach the running demo."""

from __future__ import annotations

import multiprocessing
import time

from studio.core.contracts import protocol
from studio.core.contracts.jobs import DemoRequest
from studio.engine.tasks.demo import demo_job

SMALL = {"dataset": "moons", "n_samples": 100, "resolution": 12, "frame_every": 5}


def _frames_until(job, done, timeout=120.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not job.finished:
        for message in job.poll(timeout=0.1):
            if message["type"] == protocol.FRAME and done(message["data"]):
                return message["data"]
    raise AssertionError(f"no such frame; the job is {job.state}: {job.error}")


def test_a_running_live_playground_job_applies_a_set_message_then_pauses_and_stops():
    job = demo_job(DemoRequest("playground", SMALL, live=True)).start()
    try:
        _frames_until(job, lambda f: f.get("step", 0) >= 20)  # it trains on past any fixed end…
        job.set_params({"widths": "16,17", "lr": 0.001})
        changed = _frames_until(job, lambda f: "notes" in f)
        assert changed["widths"] == [16, 17] and changed["step"] > 20
        assert any("16,16 → 16,17" in n for n in changed["notes"]) and any("lr 0.001" in n for n in changed["notes"])
        job.send(protocol.PAUSE)
        paused = _frames_until(job, lambda f: f.get("paused") is True)
        job.send(protocol.STEP)
        stepped = _frames_until(job, lambda f: "p" in f and f["step"] == paused["step"] + 5)
        assert stepped["widths"] == [16, 17]
        job.set_params({"noise": 0.4})  # paused: the change is drawn at once, with no training
        redrawn = _frames_until(job, lambda f: "notes" in f)
        assert redrawn["step"] == stepped["step"]
    finally:
        job.cancel()
        job.wait(timeout=60)
    assert job.state == "stopped" and multiprocessing.active_children() == []


def test_a_demo_that_cannot_be_steered_refuses_to_run_live():
    job = demo_job(DemoRequest("linear_neuron", {"steps": 5}, live=True)).start()
    job.wait(timeout=120)
    assert job.state == "failed" and "cannot run live" in job.error
