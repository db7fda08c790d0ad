"""Imports in a background process: progress, the result, errors, and cancel leaving nothing."""

from __future__ import annotations

import time

from studio.core.datasets import cache
from studio.engine import import_job
from studio.engine.import_job import BackgroundJob, start_import
from tests.unit import import_fixtures as fx


def _wait_for_progress(job, timeout=120.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not job.finished:
        if any(m["type"] == "progress" for m in job.poll(timeout=0.05)):
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
    assert job.outcome["type"] == "done", job.outcome
    assert job.outcome["result"]["name"] == "bg_pets" and job.outcome["result"]["num_samples"] == 15
    assert any(m["type"] == "progress" for m in seen)
    assert cache.manifest("bg_pets") is not None


def test_background_import_error_and_question(tmp_path):
    (tmp_path / "empty").mkdir()
    outcome = start_import(str(tmp_path / "empty")).wait(120)
    assert outcome["type"] == "error" and "is empty" in outcome["message"]
    (tmp_path / "t.csv").write_text("a,b,c,d,e\n1,2,3,4,5\n")
    outcome = start_import(str(tmp_path / "t.csv")).wait(120)
    assert outcome["option"] == "label_column" and outcome["choices"] == ["a", "b", "c", "d", "e"]


def test_cancel_before_it_starts_imports_nothing(tmp_path):
    job = start_import(str(fx.image_folder(tmp_path / "pets", per_class=5)))
    job.cancel()
    assert job.wait(120)["type"] == "cancelled"
    assert _cache_is_empty()


def test_cancel_stops_a_running_import_and_removes_its_staging_folder():
    job = BackgroundJob("tests.unit.slow_import:run").start()
    _wait_for_progress(job)
    assert any(p.name.startswith(".tmp-") for p in cache.root().iterdir())  # it is writing
    t0 = time.monotonic()
    job.cancel()
    outcome = job.wait(60)
    assert outcome["type"] == "cancelled" and "nothing was saved" in outcome["message"]
    assert time.monotonic() - t0 < import_job.CANCEL_GRACE_S  # it stopped by itself
    assert _cache_is_empty()


def test_an_import_that_ignores_cancel_is_killed_and_cleaned_up(monkeypatch):
    monkeypatch.setattr(import_job, "CANCEL_GRACE_S", 0.5)
    job = BackgroundJob("tests.unit.slow_import:run", ignore_cancel=True).start()
    _wait_for_progress(job)
    job.cancel()
    outcome = job.wait(60)
    assert outcome["type"] == "cancelled"
    assert not job.process.is_alive()
    assert _cache_is_empty()  # the killed process's staging folder was removed by the parent
