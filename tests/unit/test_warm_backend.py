"""The warm back end: children fork from a server that has torch loaded, and it survives a child that
crashes (killed, or a segfault)."""

from __future__ import annotations

import os

import pytest

from studio.core.threads import ThreadPlan
from studio.engine import backend
from studio.engine.process_job import TaskJob


@pytest.fixture(scope="module")
def warm():
    backend.start_warm()
    yield
    backend.stop_warm()


def _run(target, **kwargs):
    job = TaskJob(f"tests.unit.job_targets:{target}", kwargs, label="check", threads=ThreadPlan(1))
    job.start()
    job.wait(180)
    return job


def test_children_start_with_torch_already_imported(warm):
    job = _run("warm_check")
    assert job.state == "finished" and job.result["torch_preloaded"], job.error
    assert job.ctx.get_start_method() == "forkserver"


@pytest.mark.parametrize("how", ["kill", "segfault"])
def test_the_back_end_survives_a_crashing_job(warm, how):
    before = _run("warm_check")
    server = backend.server_pid()
    crashed = _run("crash", how=how)
    assert crashed.state == "failed" and "signal" in crashed.error
    after = _run("warm_check")
    assert after.state == "finished" and after.result["torch_preloaded"]
    assert backend.server_pid() == server and server is not None
    os.kill(server, 0)  # still alive
    assert after.result["pid"] != before.result["pid"]


def test_a_plan_the_server_cannot_honour_is_spawned_cold(warm):
    assert backend.context(ThreadPlan(2, "PASSIVE")).get_start_method() == "spawn"
    assert backend.context(ThreadPlan(1, "PASSIVE")).get_start_method() == "forkserver"  # one thread: moot
    assert backend.context(ThreadPlan(2, "")).get_start_method() == "forkserver"


def test_a_warm_training_rank_runs_a_whole_run(warm, studio_home):
    """A rank forked by the server (not the launcher's child) still reports, finishes and is recorded."""
    from studio.core.config import RunConfig
    from studio.core.runs import RunStore
    from studio.engine.launcher import launch

    job = launch(RunConfig().with_overrides(["data.name=moons", "train.epochs=30"]), RunStore(), spare_cores=1)
    assert job.ctx.get_start_method() == "forkserver"
    assert job.wait(180) == "finished", job.error
    assert job.progress["step"] > 0 and RunStore().get(job.run_id).status == "finished"
