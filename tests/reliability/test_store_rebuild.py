"""Issue 39.1: a damaged run folder never loses another run. The run store registers every run folder it does
not list — its database garbage, emptied, deleted, or missing some rows — and a line of a run's metrics.csv that
cannot be read (overlong, garbage, NUL bytes) costs that line only, counted and named in the one warning."""

from __future__ import annotations

import json
import os
import sqlite3
import tracemalloc
from pathlib import Path

import pytest

from tests.conftest import run_cli


def make_runs(home: Path, count: int = 4, values: int = 20) -> list[str]:
    """``count`` finished runs registered as training registers them (create, log, finish), in creation order."""
    from studio.core.config import RunConfig
    from studio.core.runs.store import RunStore

    store = RunStore(home)
    ids = []
    try:
        for n in range(count):
            info = store.create_run(RunConfig(), name=f"run {n}", run_id=f"20250101-00000{n}-0000000{n}")
            store.log_metrics(info.id, [(s, "train/loss", 1.0 / (s + n + 1), 1000.0 + s) for s in range(values)])
            store.set_status(info.id, "finished", summary={"steps": values})
            ids.append(info.id)
    finally:
        store.close()
    return ids


def forget_database(home: Path) -> None:
    for name in ("runs.db", "runs.db-wal", "runs.db-shm"):
        (home / name).unlink(missing_ok=True)


def listed(home: Path) -> tuple[list[dict], list[str]]:
    """``studio runs --json`` as a user runs it: (the runs, the warning lines)."""
    proc = run_cli("runs", "--json", env={**os.environ, "STUDIO_HOME": str(home)})
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    warnings = [line for line in proc.stderr.splitlines() if line.startswith("studio: warning:")]
    return json.loads(proc.stdout)["runs"], warnings


def values_of(home: Path, run_id: str) -> int:
    from studio.core.runs.store import RunStore

    store = RunStore(home)
    try:
        return sum(len(steps) for steps, _ in store.metrics(run_id).values())
    finally:
        store.close()


@pytest.mark.parametrize("damage", ["overlong", "garbage_with_nul", "broken_quote"])
def test_a_bad_metrics_line_costs_that_line_never_another_run(home, damage):
    ids = make_runs(home)
    bad = {"overlong": b"1,train/loss," + b"9" * 200_000 + b",1.0\n",  # > 128 KB: csv's field limit
           "garbage_with_nul": b"\x00\x01garbage\xff\x00,,,\n",
           "broken_quote": b'5,"train/loss,0.5,1.0\n'}[damage]
    with open(home / "runs" / ids[1] / "metrics.csv", "ab") as fh:  # the second run in folder order
        fh.write(bad)
        fh.write(b"99,train/loss,0.01,2000.0\n")  # a good line after the bad one still counts
    (home / "runs.db").write_bytes(os.urandom(8192))
    for extra in ("runs.db-wal", "runs.db-shm"):
        (home / extra).unlink(missing_ok=True)

    runs, warnings = listed(home)
    assert sorted(r["run_id"] for r in runs) == ids  # every run, the ones after the damaged folder included
    assert len(warnings) == 1
    assert "4 runs and 81 logged values recovered" in warnings[0]  # 4 × 20 + the good line after the bad one
    assert "1 unreadable metrics.csv line skipped" in warnings[0] and f"run {ids[1]} metrics.csv line 22" in warnings[0]
    assert values_of(home, ids[1]) == 21 and values_of(home, ids[3]) == 20


def test_a_deleted_database_is_rebuilt_with_every_run(home):
    ids = make_runs(home)
    forget_database(home)
    runs, warnings = listed(home)
    assert sorted(r["run_id"] for r in runs) == ids
    assert len(warnings) == 1 and "was missing" in warnings[0] and "4 runs and 80 logged values" in warnings[0]
    assert {r["status"] for r in runs} == {"finished"}
    again, said = listed(home)  # rebuilt once: the next command says nothing
    assert len(again) == 4 and not said


def test_a_sound_database_that_lost_runs_gets_them_back(home):
    """A store left by an earlier rebuild that stopped half-way: the folders it does not list are added."""
    ids = make_runs(home)
    db = sqlite3.connect(home / "runs.db")
    with db:
        for table, col in (("runs", "id"), ("metrics", "run_id")):
            db.execute(f"DELETE FROM {table} WHERE {col} IN (?, ?)", (ids[2], ids[3]))
    db.close()
    runs, warnings = listed(home)
    assert sorted(r["run_id"] for r in runs) == ids
    assert len(warnings) == 1 and "did not list 2 runs" in warnings[0] and "40 logged values" in warnings[0]
    assert values_of(home, ids[3]) == 20


def test_a_folder_that_cannot_be_read_is_named_and_costs_only_itself(home):
    ids = make_runs(home, 3)
    (home / "runs" / ids[0] / "config.toml").write_bytes(b"\xff\xfe\x00 not text")
    forget_database(home)
    runs, warnings = listed(home)
    assert sorted(r["run_id"] for r in runs) == ids[1:]
    assert "1 folder could not be read" in warnings[0] and ids[0] in warnings[0]


def test_deleted_and_half_made_runs_are_not_registered_again(home):
    from studio.core.runs.store import RunStore

    ids = make_runs(home, 2)
    store = RunStore(home)
    store.delete(ids[0])
    store.close()
    half = home / "runs" / "20250101-000009-00000009"  # a run another process is creating: no config.toml yet
    (half / "checkpoints").mkdir(parents=True)
    (half / ".config.toml.new").write_text("[model]\nname = 'mlp'\n")
    runs, warnings = listed(home)
    assert [r["run_id"] for r in runs] == [ids[1]] and not warnings


def test_a_metrics_record_with_an_absurd_line_is_read_in_bounded_memory(tmp_path):
    from studio.core.runs import metric_log

    metric_log.append(tmp_path, [(1, "train/loss", 0.5, 10.0)])
    with open(tmp_path / "metrics.csv", "ab") as fh:
        for _ in range(20):
            fh.write(b"7" * (1 << 20))  # one 20 MB line
        fh.write(b"\n")
    metric_log.append(tmp_path, [(2, "train/loss", 0.4, 11.0)])
    tracemalloc.start()
    try:
        record = metric_log.read_checked(tmp_path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert record is not None and [r[0] for r in record.rows] == [1, 2]
    assert record.skipped == 1 and record.examples == ["line 3: longer than 64 KB"]
    assert peak < 4 << 20, f"{peak / 2**20:.1f} MB held to read a file with a 20 MB line"


def test_a_run_a_script_tracked_is_rebuilt_with_its_settings_and_values(home):
    """A run written by ``studio.track`` (a script's own training, through RunStore) comes back as every other run:
    its folder, its settings and every logged value; one bad line costs that value only."""
    import studio.track

    with studio.track.init("script", config={"lr": 0.01, "model": {"depth": 3}}) as run:
        for step in range(10):
            run.log({"train/loss": 1.0 / (step + 1)}, step=step)
    native = make_runs(home, 1)
    with open(home / "runs" / run.id / "metrics.csv", "ab") as fh:
        fh.write(b"\x00" * 300_000 + b"\n")  # a garbage line longer than csv's field limit
    forget_database(home)
    runs, warnings = listed(home)
    assert sorted(r["run_id"] for r in runs) == sorted([run.id, *native])
    assert "2 runs and 30 logged values recovered" in warnings[0] and "1 unreadable metrics.csv line" in warnings[0]
    from studio.core.runs.store import RunStore

    store = RunStore(home)
    assert store.params(run.id)["lr"] == 0.01 and store.params(run.id)["model.depth"] == 3
    assert values_of(home, run.id) == 10
