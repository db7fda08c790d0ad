"""The warm back end: children fork from a server that has torch loaded, and it survives a child that
crashes (killed, or a segfault)."""

from __future__ import annotations

import os

import pytest

from studio.core.host.threads import ThreadPlan
from studio.core.host.threads import plan as thread_plan
from studio.engine.jobs import backend
from studio.engine.jobs.process_job import TaskJob


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


def test_a_childs_first_optimizer_imports_nothing(warm):
    """The server preloads what PyTorch's first Optimizer() imports (torch._dynamo: 1-3 s of every warm Train)."""
    job = _run("first_optimizer")
    assert job.state == "finished", job.error
    assert job.result["imported"] == [], job.result["imported"][:10]


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


def test_every_thread_plan_starts_warm(warm):
    spin, passive = backend.context(ThreadPlan(2, "")), backend.context(ThreadPlan(2, "PASSIVE"))
    assert spin.get_start_method() == passive.get_start_method() == "forkserver"
    assert spin is not passive  # one server per wait policy
    assert backend.context(ThreadPlan(1, "PASSIVE")) is spin  # one thread: no OpenMP team, the policy is moot


def test_the_passive_server_starts_by_itself_only_where_the_guis_jobs_can_use_it(warm, monkeypatch):
    monkeypatch.setitem(backend._state, "second", None)
    monkeypatch.setattr(backend, "EAGER_PASSIVE_CORES", 99)  # a 2-core machine: waits for a job that needs it
    backend.start_warm()
    assert backend._state["second"] is None
    monkeypatch.setattr(backend, "EAGER_PASSIVE_CORES", 1)  # more cores: after the first server is ready
    backend.start_warm()
    starter = backend._state["second"]
    starter.join(180)
    assert not starter.is_alive()
    os.kill(backend.server_pid("PASSIVE"), 0)  # running
    assert backend.server_pid("PASSIVE") != backend.server_pid()
    monkeypatch.setitem(backend._state, "second", None)
    monkeypatch.setenv("OMP_WAIT_POLICY", "ACTIVE")  # the person's choice: every plan keeps it, one server
    backend.start_warm()
    assert backend._state["second"] is None


@pytest.mark.skipif(bool(backend.env_policy()), reason="OMP_WAIT_POLICY set for the whole test run")
@pytest.mark.parametrize("busy, policy", [("2", "PASSIVE"), ("0", "")])
def test_a_job_forks_from_the_server_with_its_plans_wait_policy(warm, monkeypatch, busy, policy):
    """The busy plan (STUDIO_BUSY_CORES pins the measurement) asks for PASSIVE: its child comes from the warm
    PASSIVE server, whose libgomp read PASSIVE when it loaded torch; a quiet plan gets the spin-wait server."""
    monkeypatch.setenv("STUDIO_BUSY_CORES", busy)
    plan = thread_plan(requested=2)
    assert plan.wait_policy == policy
    job = TaskJob("tests.unit.job_targets:wait_policy_check", label="check", threads=plan)
    job.start()
    assert job.wait(180) == "finished", job.error
    assert job.ctx.get_start_method() == "forkserver"
    assert job.result["parent"] == backend.server_pid(policy)  # forked by that server, not spawned
    assert job.result["torch_loaded_by_server"] and job.result["wait_policy"] == policy


@pytest.mark.slow
@pytest.mark.skipif(bool(backend.env_policy()), reason="OMP_WAIT_POLICY set for the whole test run")
def test_openmp_threads_of_a_passive_child_sleep_instead_of_spinning(warm):
    """Behaviour, not only the environment: between parallel operations the PASSIVE child's OpenMP workers
    burn far less CPU than the spin-wait child's (the two interleaved, so load hits both)."""
    spin: dict[str, list[float]] = {"": [], "PASSIVE": []}
    for _ in range(3):
        for policy in spin:
            job = TaskJob("tests.unit.job_targets:idle_spin", label="check", threads=ThreadPlan(2, policy))
            job.start()
            assert job.wait(180) == "finished", job.error
            assert job.result["threads"] == 2
            spin[policy].append(job.result["spin"])
    assert sorted(spin["PASSIVE"])[1] < 0.5 * sorted(spin[""])[1], spin


def test_a_warm_training_rank_runs_a_whole_run(warm, studio_home):
    """A rank forked by the server (not the launcher's child) still reports, finishes and is recorded."""
    from studio.core.config import RunConfig
    from studio.core.runs.store import RunStore
    from studio.engine.training.launcher import launch

    job = launch(RunConfig().with_overrides(["data.name=moons", "train.epochs=30"]), RunStore(), spare_cores=1)
    assert job.ctx.get_start_method() == "forkserver"
    assert job.wait(180) == "finished", job.error
    assert job.progress["step"] > 0 and RunStore().get(job.run_id).status == "finished"


def test_a_warm_server_that_cannot_fork_falls_back_to_spawn(warm, monkeypatch, capfd):
    from studio.engine.jobs import forkservers

    def broken(self, process_obj):
        raise OSError("the server is gone")

    monkeypatch.setattr(forkservers._ServerPopen, "_launch", broken)
    try:
        job = _run("warm_check")
        assert job.state == "finished" and not job.result["torch_preloaded"], job.error  # started cold
        assert job.ctx.get_start_method() == "spawn" and not backend.is_warm()
        assert "the warm back end failed (OSError: the server is gone)" in capfd.readouterr().err
    finally:
        monkeypatch.undo()
        backend.start_warm()  # the next tests find it warm again
    assert _run("warm_check").result["torch_preloaded"]


def test_the_back_end_says_it_is_loading_until_its_first_child_answers(monkeypatch):
    """A new server imports torch for seconds: until then a job waits for it, and ``loading()`` says so (the
    window tells a person what a first Train waits for)."""
    monkeypatch.setattr(backend, "_servers", {})
    monkeypatch.setattr(backend, "_state", {"warm": False, "second": None, "ready": False, "probe": None})
    monkeypatch.setattr(backend, "EAGER_PASSIVE_CORES", 99)
    assert not backend.loading()  # not started: jobs are spawned, nothing to wait for
    backend.start_warm()
    try:
        assert backend.loading()
        backend._state["probe"].join(180)
        assert not backend.loading() and backend._state["ready"]
    finally:
        backend.stop_warm()
        for server in backend._servers.values():
            server.server._stop()
