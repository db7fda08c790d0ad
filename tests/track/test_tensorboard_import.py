"""``studio import LOGDIR``: TensorBoard runs (a SummaryWriter folder, Lightning's lightning_logs/) as Studio runs,
idempotent, with damaged and foreign files skipped and counted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from studio.core.runs import histograms, open_target
from studio.core.runs.store import RunStore
from studio.core.runs.tensorboard_import import find_runs, import_logs
from tests.conftest import last_json, run_cli
from tests.track.tb_logs import lightning_logs, summary_writer_run

pytest.importorskip("tbparse")
pytest.importorskip("tensorboard")


def test_a_summary_writer_folder_becomes_a_run(tmp_path: Path, studio_home: Path) -> None:
    logdir = tmp_path / "logs"
    summary_writer_run(logdir / "exp1")
    assert open_target.classify(logdir).kind == open_target.TENSORBOARD
    assert list(find_runs(logdir)) == [logdir / "exp1"]  # add_hparams' timestamp folder belongs to it
    store = RunStore()
    report = import_logs(logdir, store)
    (run_id,) = report.imported
    info = store.get(run_id)
    assert info.status == "finished" and info.name == "logs/exp1" and "tensorboard" in info.tags
    curves = store.curves([run_id])[run_id]
    assert list(curves["train/loss"].steps) == list(range(20))
    assert curves["train/loss"].values[-1] == pytest.approx(1 / 20)
    params = store.params(run_id)
    assert params["lr"] == pytest.approx(0.01) and params["optimizer"] == "adamw" and params["batch_size"] == 64
    series = histograms.series(histograms.read(info.dir))
    weights = series[("fc.weight", "weight")]
    assert weights.steps == [0, 5, 10, 15]
    assert sum(sum(c) for c in weights.counts) == 4 * 500
    assert weights.highs[-1] - weights.lows[-1] > weights.highs[0] - weights.lows[0]  # the spread grew


def test_reimporting_is_no_change_and_a_grown_log_is_imported_anew(tmp_path: Path, studio_home: Path) -> None:
    logdir = tmp_path / "logs"
    summary_writer_run(logdir / "a", hparams=False, histograms=False)
    store = RunStore()
    first = import_logs(logdir, store)
    again = import_logs(logdir, store)
    assert again.imported == [] and again.unchanged == first.imported
    assert len(store.list()) == 1
    summary_writer_run(logdir / "a", steps=30, hparams=False, histograms=False)  # a second event file
    grown = import_logs(logdir, store)
    assert grown.imported == first.imported
    assert len(store.curves(grown.imported)[grown.imported[0]]["train/loss"]) == 30


def test_lightning_logs_import(tmp_path: Path, studio_home: Path) -> None:
    pytest.importorskip("lightning")
    logs = lightning_logs(tmp_path, steps=6)
    store = RunStore()
    report = import_logs(logs, store)
    (run_id,) = report.imported
    info = store.get(run_id)
    assert info.name == "lightning_logs/version_0"
    curves = store.curves([run_id])[run_id]
    assert len(curves["train/loss"]) == 6
    assert store.params(run_id)["hidden"] == 8


def test_truncated_and_foreign_files_are_skipped_and_counted(tmp_path: Path, studio_home: Path) -> None:
    logdir = tmp_path / "logs"
    summary_writer_run(logdir / "good", hparams=False, histograms=False)
    (good,) = (logdir / "good").glob("events.out.tfevents.*")
    cut = logdir / "cut"
    cut.mkdir()
    (cut / good.name).write_bytes(good.read_bytes()[:400])
    (logdir / "junk").mkdir()
    (logdir / "junk" / "events.out.tfevents.1.host.0").write_bytes(b"\x00not a tensorboard file at all" * 3)
    report = import_logs(logdir, RunStore())
    assert len(report.imported) == 2 and len(report.foreign) == 1 and len(report.truncated) == 1
    assert "skipped 1 file that is not a TensorBoard log" in report.line()
    assert "1 truncated file" in report.line()


def test_the_cli(tmp_path: Path, studio_home: Path) -> None:
    logdir = summary_writer_run(tmp_path / "exp", hparams=False, histograms=False)
    done = run_cli("import", str(logdir), "--json", "--tag", "sweep")
    assert done.returncode == 0, done.stderr
    out = last_json(done.stdout)
    assert len(out["imported"]) == 1 and out["foreign"] == []
    listed = json.loads(run_cli("runs", "--json").stdout.strip().splitlines()[-1])
    rows = listed if isinstance(listed, list) else listed.get("runs", [])
    assert any(r["run_id"] == out["imported"][0] and r["tags"] == ["sweep"] for r in rows)
    missing = run_cli("import", str(tmp_path / "nothing-here"))
    assert missing.returncode == 2 and missing.stderr.strip().count("\n") == 0
    assert "does not exist" in missing.stderr
