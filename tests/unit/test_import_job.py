"""Imports in a background job: progress, the result, errors, and cancel leaving nothing."""

from __future__ import annotations

import time

from studio.core.contracts import protocol
from studio.core.datasets import cache
from studio.engine.tasks.data_import import ImportJob, start_import
from tests.unit import import_fixtures as fx


def _wait_for_progress(job, timeout=120.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not job.finished:
        if any(m["type"] == protocol.PROGRESS and m["total"] for m in job.poll(timeout=0.05)):
            return
    raise AssertionError("no progress from the job")


def _cache_is_empty():
    return cache.entries() == [] and list(cache.root().iterdir()) == []


def test_background_import_reports_progress_and_the_result(tmp_path):
    root = fx.image_folder(tmp_path / "pets", per_class=5)
    job = start_import(str(root), {"name": "bg_pets"})
    seen = []
    deadline = time.monotonic() + 120
    while not job.finished and time.monotonic() < deadline:
        seen += job.poll(timeout=0.1)
    assert job.state == "finished", job.error
    assert job.result["name"] == "bg_pets" and job.result["num_samples"] == 15
    assert any(m["type"] == protocol.PROGRESS for m in seen)
    assert seen[-1]["type"] == protocol.JOB_ENDED and seen[-1]["status"] == "finished"
    assert cache.manifest("bg_pets") is not None


def test_background_import_error_and_question(tmp_path):
    (tmp_path / "empty").mkdir()
    job = start_import(str(tmp_path / "empty"))
    assert job.wait(120) == "failed" and "is empty" in job.error and job.exit_code == 2
    (tmp_path / "t.csv").write_text("a,b,c,d,e\n1,2,3,4,5\n")
    job = start_import(str(tmp_path / "t.csv"))
    job.wait(120)
    assert job.errors[0]["option"] == "label_column" and job.errors[0]["choices"] == ["a", "b", "c", "d", "e"]


def test_cancel_before_it_starts_imports_nothing(tmp_path):
    job = start_import(str(fx.image_folder(tmp_path / "pets", per_class=5)))
    job.cancel()
    assert job.wait(120) == "stopped"
    assert _cache_is_empty()


def test_cancel_stops_a_running_import_and_removes_its_staging_folder():
    job = ImportJob("tests.unit.slow_import:run").start()
    _wait_for_progress(job)
    assert any(p.name.startswith(".tmp-") for p in cache.root().iterdir())  # it is writing
    t0 = time.monotonic()
    job.cancel()
    assert job.wait(60) == "stopped"
    assert time.monotonic() - t0 < job.grace_s  # it stopped by itself
    assert _cache_is_empty()


def test_an_import_that_ignores_cancel_is_killed_and_cleaned_up():
    job = ImportJob("tests.unit.slow_import:run", ignore_cancel=True)
    job.grace_s = 0.5
    job.start()
    _wait_for_progress(job)
    job.cancel()
    assert job.wait(60) == "stopped"
    assert not job.processes[0].is_alive()
    assert _cache_is_empty()  # the killed process's staging folder was removed by the parent
