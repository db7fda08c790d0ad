"""Imports in a background process: progress, the result, errors, and cancel leaving nothing."""

from __future__ import annotations

import time

from studio.core.datasets import cache
from studio.engine.import_job import start_import
from tests.unit import import_fixtures as fx


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


def test_cancel_leaves_no_cache_entry(tmp_path):
    root = fx.image_folder(tmp_path / "many", per_class=600, size=(64, 64), odd_size_every=0, modes=("RGB",))
    job = start_import(str(root))
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not job.finished:
        if any(m["type"] == "progress" and "decoding" in m["text"] for m in job.poll(timeout=0.05)):
            break
    job.cancel()
    outcome = job.wait(60)
    assert outcome["type"] == "cancelled"
    assert cache.entries() == []
    assert [p.name for p in cache.root().iterdir()] == []
