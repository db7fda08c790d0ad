"""Training from the warm back end (the GUI's default once its window is up, and the queue's scheduler): ranks
forked by the forkserver have it, not the launcher, as their parent; they must not take that for the launcher
having gone away (which stopped every warm run after a second and dropped its messages)."""

from __future__ import annotations

import os

from studio.core.config import RunConfig
from studio.core.runs.store import RunStore
from studio.engine.jobs import backend
from studio.engine.training import rank_watch
from studio.engine.training.launcher import launch
from tests.conftest import TINY_CONFIG


def test_a_rank_forked_by_the_warm_server_keeps_training(studio_home, monkeypatch):
    # pin the measured load: the server importing torch in the background (or any other program) would
    # otherwise make the run's thread plan ask for PASSIVE waiting, which the server can't honour: spawned
    monkeypatch.setenv("STUDIO_BUSY_CORES", "0")
    backend.start_warm()
    try:
        # long enough to outlast the rank's parent check (PARENT_POLL_S) several times
        config = RunConfig.from_toml(TINY_CONFIG).with_overrides(["train.epochs=40", "data.n_samples=3000"])
        job = launch(config, RunStore(studio_home))
        kinds = [m["type"] for m in _follow(job)]
        assert job.ctx.get_start_method() == "forkserver"
        assert job.state == "finished", job.error
        assert kinds.count("metrics") > 10 and "status" in kinds
        assert RunStore(studio_home).get(job.run_id).summary["epochs"] == 40
    finally:
        backend.stop_warm()


def _follow(job):
    while not job.finished:
        yield from job.poll(timeout=0.2)


def test_the_parent_check_asks_whether_the_launcher_lives():
    alive_not_parent = rank_watch.RankGuard.__new__(rank_watch.RankGuard)
    alive_not_parent._parent = os.getpid()  # this process: alive, though not our parent
    assert alive_not_parent.launcher_alive()
    gone = rank_watch.RankGuard.__new__(rank_watch.RankGuard)
    gone._parent = 999_999_999
    assert not gone.launcher_alive()
