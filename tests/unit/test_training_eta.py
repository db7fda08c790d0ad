"""The training job's ETA (the one the status bar shows): measured from the first progress report, restarted by
a pause (paused time is not training time), computed by core/jobs.EtaEstimator like every job's."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from studio.core.config import RunConfig
from studio.core.contracts import protocol
from studio.core.contracts.progress import PAUSED, RUNNING
from studio.core.runs.store import RunStore
from studio.engine.training import launcher


def test_the_eta_measures_training_and_restarts_after_a_pause(tmp_path, monkeypatch):
    job = launcher.Job(RunConfig(), RunStore(tmp_path))
    now = [0.0]
    monkeypatch.setattr(launcher, "time", SimpleNamespace(monotonic=lambda: now[0]))

    def report(step: int, at: float) -> float | None:
        now[0] = at
        job._observe(protocol.metrics(job.run_id, [], step=step, total_steps=100, epoch=1, epochs=5))
        return job.eta_s

    assert report(10, 100.0) is None  # start-up is not training: the rate starts at the first report
    assert report(20, 110.0) == pytest.approx(80.0)  # 10 steps in 10 s, 80 to go
    job._observe(protocol.status(job.run_id, PAUSED))
    assert job.eta_s is None
    job._observe(protocol.status(job.run_id, RUNNING))  # resumed 390 s later: the pause does not count
    assert report(20, 500.0) is None
    assert report(30, 510.0) == pytest.approx(70.0)
