"""Landscape jobs in a spawned process: progress messages, a saved result, cancel, errors."""

import multiprocessing
import time

import numpy as np
import pytest

from studio.core.contracts.landscape import LandscapeJobRequest, LandscapeRequest, SharpnessJobRequest, SharpnessRequest
from studio.core.landscape import io
from studio.engine.tasks.landscape_job import start_landscape_job
from tests.unit.landscape_runs import SMALL, train_run


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    return train_run(tmp_path_factory.mktemp("home"), SMALL)


def _follow(job, timeout=120):
    messages = []
    deadline = time.monotonic() + timeout
    while not job.finished and time.monotonic() < deadline:
        messages += job.poll(timeout=0.1)
    return messages


def test_landscape_job_reports_progress_and_saves_the_result(run_dir):
    job = start_landscape_job(LandscapeJobRequest(str(run_dir), LandscapeRequest(kind="2d", resolution=7, samples=200)))
    messages = _follow(job)
    assert job.state == "finished", job.error
    fractions = [m["fraction"] for m in messages if m["type"] == "progress"]
    assert len(fractions) >= 3 and fractions == sorted(fractions) and fractions[-1] == 1.0
    result = io.load(job.result["path"])
    assert result.loss.shape == (7, 7)
    assert job.result["summary"]["center_loss"] == pytest.approx(result.center_loss())
    assert multiprocessing.active_children() == []


def test_a_2d_landscape_sends_its_preview_first_then_rows_and_saves_the_same_grid(run_dir):
    from studio.engine.tasks.landscape import compute_landscape

    options = {"kind": "2d", "resolution": 21, "samples": 200}
    job = start_landscape_job(LandscapeJobRequest(str(run_dir), LandscapeRequest(**options)))
    messages = _follow(job)
    assert job.state == "finished", job.error
    types = [m["type"] for m in messages]
    frames = [m["data"] for m in messages if m["type"] == "frame"]
    assert frames and frames[0]["stage"] == "preview" and frames[0]["loss"].shape == (11, 11)
    assert frames[0]["split"] == "train"
    assert types.index("frame") < types.index("result")  # the preview arrives before the end
    rows = [f["rows_done"] for f in frames[1:]]
    assert rows == sorted(rows) and rows[-1] == 21 and len(rows) >= 3
    saved = io.load(job.result["path"])
    plain, _ = compute_landscape(run_dir, **options, save=False)  # no preview, computed in this process
    np.testing.assert_allclose(saved.loss, plain.loss, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(frames[-1]["loss"], saved.loss)


def test_cancel_stops_a_long_job(run_dir):
    job = start_landscape_job(LandscapeJobRequest(str(run_dir), LandscapeRequest(kind="2d", resolution=301, samples=0)))
    deadline = time.monotonic() + 60
    while job.fraction < 0.01 and not job.finished and time.monotonic() < deadline:
        job.poll(timeout=0.1)
    t0 = time.monotonic()
    job.cancel()
    _follow(job, timeout=20)
    assert job.state == "stopped" and time.monotonic() - t0 < 8
    assert job.result is None and not list((run_dir / "landscapes").glob("2d_*_*.npz.tmp"))


def test_a_bad_request_fails_with_a_message(run_dir):
    job = start_landscape_job(SharpnessJobRequest(str(run_dir), SharpnessRequest(checkpoint="12345")))
    _follow(job)
    assert job.state == "failed" and "no checkpoint at step 12345" in job.error


def test_a_request_outside_the_limits_fails_the_job_with_the_contracts_sentence(run_dir):
    from studio.core.contracts.landscape import RESOLUTION_MAX
    from studio.core.errors import ConfigError

    request = LandscapeRequest(resolution=RESOLUTION_MAX + 1)
    with pytest.raises(ConfigError) as err:
        request.validate()
    job = start_landscape_job(LandscapeJobRequest(str(run_dir), request))
    _follow(job)
    assert job.state == "failed" and str(err.value) in job.error


def test_a_trajectory_landscape_draws_a_coarse_preview_first(run_dir):
    """The trajectory plane also comes coarse-to-fine, each frame with the path to draw on it."""
    from studio.engine.tasks.landscape import compute_landscape

    frames = []
    land, _ = compute_landscape(run_dir, "trajectory", resolution=13, samples=200, save=False, device="cpu",
                                emit=frames.append)
    assert frames[0]["stage"] == "preview" and frames[0]["kind"] == "trajectory"
    assert frames[0]["loss"].shape == (11, 11) and len(frames[0]["explained_variance"]) == 2
    np.testing.assert_allclose(frames[0]["path"], land.path)
    assert frames[-1]["rows_done"] == 13
    np.testing.assert_allclose(frames[-1]["loss"], land.loss)
