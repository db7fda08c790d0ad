"""Issue 20.3: curves outlive runs.db. Each run folder keeps metrics.csv (core/runs/metric_log.py); a damaged
runs.db (garbage, zero bytes) is moved aside and rebuilt with every value back, and says so once on stderr."""

from __future__ import annotations

import csv
import json
import math
import os

import pytest

from tests.conftest import last_json, run_cli
from tests.reliability.conftest import error_lines


def trained_run(home) -> str:
    """A real 2-epoch run with metrics read every 2 steps (so there are several dozen values)."""
    proc = run_cli("train", "--json", "--set", "data.name=moons", "--set", "data.n_samples=300",
                   "--set", "model.widths=16", "--set", "train.batch_size=32", "--set", "train.epochs=2",
                   "--set", "train.metric_interval=2")
    assert proc.returncode == 0, proc.stderr
    return last_json(proc.stdout)["run_id"]


def exported(run_id: str, path) -> list[list[str]]:
    proc = run_cli("export", run_id, "--csv", str(path), "--json")
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    with open(path, newline="") as fh:
        return list(csv.reader(fh))


def warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("studio: warning:")]


@pytest.mark.parametrize("damage", ["garbage", "zero_bytes"])
def test_damaged_database_gets_every_curve_back(home, tmp_path, damage):
    run_id = trained_run(home)
    before_list = json.loads(run_cli("runs", "--json").stdout)["runs"]
    before = exported(run_id, tmp_path / "before.csv")
    assert len(before) > 40, "the run should have logged several dozen values"
    for extra in ("runs.db-wal", "runs.db-shm"):
        (home / extra).unlink(missing_ok=True)
    (home / "runs.db").write_bytes(os.urandom(20_000) if damage == "garbage" else b"")

    listed = run_cli("runs", "--json")
    assert listed.returncode == 0 and "Traceback" not in listed.stderr, listed.stderr
    said = warnings(listed.stderr)
    assert len(said) == 1, listed.stderr
    assert not error_lines(listed.stderr), listed.stderr
    kept = list(home.glob("runs.db.corrupt-*"))
    assert len(kept) == 1 and str(kept[0]) in said[0], said
    assert "damaged" in said[0] and "1 run and" in said[0]
    values = sum(1 for _ in before) - 1  # less the header
    assert f"{values:,} logged values recovered" in said[0], (said[0], values)
    rows = json.loads(listed.stdout)["runs"]
    assert [r["run_id"] for r in rows] == [r["run_id"] for r in before_list]
    assert rows[0]["status"] == "finished"

    after = exported(run_id, tmp_path / "after.csv")
    assert sorted(after) == sorted(before)  # the same rows and values, to the last digit
    again = run_cli("runs", "--json")  # the rebuilt store is sound: nothing more is said or moved
    assert not warnings(again.stderr) and len(list(home.glob("runs.db.corrupt-*"))) == 1


def test_zero_byte_database_of_a_new_store_is_just_used(home):
    """Nothing to lose (no run folders): an empty file is a new database, not a damaged one."""
    (home / "runs.db").write_bytes(b"")
    listed = run_cli("runs", "--json")
    assert listed.returncode == 0 and not warnings(listed.stderr), listed.stderr
    assert json.loads(listed.stdout)["runs"] == [] and not list(home.glob("runs.db.corrupt-*"))


def test_record_survives_a_torn_last_line_and_a_resume(tmp_path):
    from studio.core.contracts.layout import metrics_path
    from studio.core.runs import metric_log

    run_dir = tmp_path
    metric_log.append(run_dir, [(1, "train/loss", 0.5, 10.0), (1, "odd, \"name\"", float("nan"), 10.0)])
    metric_log.append(run_dir, [(2, "train/loss", 0.4, 11.0), (3, "train/loss", 0.3, 12.0)])
    metric_log.drop_after(run_dir, 2)  # a resume from the checkpoint at step 2
    metric_log.append(run_dir, [(2, "train/loss", 0.41, 13.0), (3, "train/loss", 0.31, 14.0)])
    with open(metrics_path(run_dir), "ab") as fh:
        fh.write(b"4,train/loss,0.2")  # the process died mid-line
    rows = metric_log.read(run_dir)
    assert rows is not None
    assert [r for r in rows if r[1] == "train/loss"] == [(1, "train/loss", 0.5, 10.0), (2, "train/loss", 0.41, 13.0),
                                                          (3, "train/loss", 0.31, 14.0)]
    odd = [r for r in rows if r[1] == "odd, \"name\""]
    assert len(odd) == 1 and math.isnan(odd[0][2])
    metric_log.append(run_dir, [(4, "train/loss", 0.25, 15.0)])  # the next writer starts on a fresh line
    assert metric_log.read(run_dir)[-1] == (4, "train/loss", 0.25, 15.0)
    assert metric_log.read(tmp_path / "missing") is None


def test_resumed_run_record_matches_its_curves(home):
    """Stopped at step ~17 and resumed: the record holds each (step, name) once (the rows past the checkpoint
    are dropped by its #after line, a value logged again at the resume step is read once), the same as runs.db."""
    from studio.core.config import RunConfig
    from studio.core.runs import metric_log
    from studio.core.runs.store import RunStore
    from studio.engine.training.launcher import launch
    from studio.engine.training.resume_plan import plan_resume

    cfg = RunConfig().with_overrides(["data.name=moons", "data.n_samples=400", "model.widths=16", "train.epochs=3",
                                      "train.batch_size=16", "train.metric_interval=1", "hardware.threads=1",
                                      "train.checkpoint_every=1"])
    store = RunStore(home)
    job = launch(cfg, store)
    while job.progress["step"] < 30 and not job.finished:
        job.poll(0.02)
    job.stop()
    assert job.wait(60) == "stopped"
    plan = plan_resume(store, job.run_id)
    assert launch(plan.config, store, resume=plan).wait(120) == "finished"
    info = store.get(job.run_id)
    rows = metric_log.read(info.dir)
    assert rows is not None
    keys = [(s, n) for s, n, _, _ in rows]
    assert len(keys) == len(set(keys))
    steps = sorted(s for s, n in keys if n == "train/loss")
    assert steps == list(range(1, info.summary["steps"] + 1))  # no gap, no repeat
    db = {(s, n): v for n, (ss, vs) in store.metrics(job.run_id).items() for s, v in zip(ss, vs, strict=True)}
    assert {(s, n): v for s, n, v, _ in rows} == db
