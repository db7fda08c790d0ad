"""The TensorBoard import as a background task (``engine/tasks/log_import.py``): its request names its task, its
report comes back as plain values, and its progress callback is called once per run (where Cancel stops it)."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from studio.core.contracts import tasks
from studio.core.contracts.jobs import LogImportRequest
from studio.core.contracts.progress import Cancelled
from studio.core.runs.store import RunStore
from studio.engine.tasks.log_import import run
from tests.track.tb_logs import summary_writer_run


def test_the_request_names_the_import_task():
    assert tasks.task_for(LogImportRequest("logs", "home")) is tasks.IMPORT_LOGS


def test_the_task_imports_each_run_and_says_where_it_is(tmp_path: Path, studio_home: Path):
    pytest.importorskip("tbparse")
    for name in ("a", "b"):
        summary_writer_run(tmp_path / "logs" / name, steps=5, histograms=False)
    (tmp_path / "logs" / "a" / "notes.tfevents.txt").write_text("not a log")
    seen: list[str] = []
    result = run(LogImportRequest(str(tmp_path / "logs"), str(studio_home)), lambda _f, text: seen.append(text))
    assert len(result["imported"]) == 2 and result["line"].startswith("imported 2 TensorBoard runs")
    assert seen == ["run 1 of 2: a", "run 2 of 2: b"]
    assert pickle.loads(pickle.dumps(result)) == result  # it crosses the process boundary
    assert {r.id for r in RunStore(studio_home).list()} == set(result["imported"])


def test_a_cancel_between_runs_keeps_the_runs_already_imported(tmp_path: Path, studio_home: Path):
    pytest.importorskip("tbparse")
    for name in ("a", "b"):
        summary_writer_run(tmp_path / "logs" / name, steps=5, histograms=False)

    def progress(_fraction: float, text: str) -> None:
        if text.startswith("run 2"):
            raise Cancelled()

    with pytest.raises(Cancelled):
        run(LogImportRequest(str(tmp_path / "logs"), str(studio_home)), progress)
    assert [r.name for r in RunStore(studio_home).list()] == ["logs/a"]
