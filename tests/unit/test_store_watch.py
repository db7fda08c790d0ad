"""Watching a store that other machines write: read-only opening never changes it; the journal mode on a
network filesystem; which run a torchrun launch is (engine/training/torchrun.py)."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from studio.core.config import RunConfig
from studio.core.errors import ConfigError, StoreError
from studio.core.runs import db as store_db
from studio.core.runs.store import STALE_S, RunStore
from studio.engine.training.torchrun import plan, run_id_from_env
from tests.conftest import TINY_CONFIG


def test_read_only_store_reads_and_refuses_every_write(tmp_path):
    writer = RunStore(tmp_path)
    run = writer.create_run(RunConfig.from_toml(TINY_CONFIG))
    writer.set_status(run.id, "running")
    with writer._db:  # a cluster run whose last heartbeat is old: it looks interrupted
        writer._db.execute("UPDATE runs SET heartbeat=?, updated=? WHERE id=?",
                           (time.time() - 2 * STALE_S, time.time() - 2 * STALE_S, run.id))
    reader = RunStore(tmp_path, read_only=True)
    assert reader.get(run.id).status == "interrupted"  # shown so …
    assert writer.get(run.id).status == "interrupted"  # (the writer settles it itself)
    for attempt in (lambda: reader.set_status(run.id, "failed"), lambda: reader.delete(run.id),
                    lambda: reader.create_run(RunConfig()), lambda: reader.log_metrics(run.id, [(1, "x", 1.0, 0.0)])):
        with pytest.raises(StoreError, match="read-only"):
            attempt()
    assert [p.name for p in reader.runs_dir.iterdir()] == [run.id]


def test_read_only_never_settles_in_the_store(tmp_path):
    writer = RunStore(tmp_path)
    run = writer.create_run(RunConfig.from_toml(TINY_CONFIG))
    with writer._db:
        writer._db.execute("UPDATE runs SET status='running', heartbeat=0, updated=0 WHERE id=?", (run.id,))
    assert RunStore(tmp_path, read_only=True).get(run.id).status == "interrupted"
    raw = sqlite3.connect(tmp_path / "runs.db").execute("SELECT status FROM runs").fetchone()[0]
    assert raw == "running"  # the store still says what its writer wrote


def test_read_only_open_of_a_damaged_store_is_an_error_not_a_rebuild(tmp_path):
    (tmp_path / "runs.db").write_bytes(b"not a database at all" * 100)
    with pytest.raises(StoreError):
        RunStore(tmp_path, read_only=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runs.db"]  # not moved aside, nothing created


def test_rollback_journal_on_network_filesystems(tmp_path, monkeypatch):
    monkeypatch.setattr(store_db, "filesystem_type", lambda path: "nfs4")
    store = RunStore(tmp_path / "nfs")
    assert store._db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    monkeypatch.setattr(store_db, "filesystem_type", lambda path: "ext4")
    assert RunStore(tmp_path / "local")._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    monkeypatch.setenv("STUDIO_STORE_JOURNAL", "delete")
    assert RunStore(tmp_path / "forced")._db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    assert store_db.filesystem_type(tmp_path) != ""  # read from /proc/self/mountinfo on Linux


def test_torchrun_run_id(monkeypatch):
    monkeypatch.delenv("TORCHELASTIC_RUN_ID", raising=False)
    assert run_id_from_env(None) is None
    assert run_id_from_env("job-7") == "job-7"
    monkeypatch.setenv("TORCHELASTIC_RUN_ID", "none")  # torchrun's default: no id of its own
    assert run_id_from_env(None) is None
    monkeypatch.setenv("TORCHELASTIC_RUN_ID", "4242")
    assert run_id_from_env(None) == "torchrun-4242"
    with pytest.raises(ConfigError, match="letters"):
        run_id_from_env("../etc")


def test_torchrun_plan_creates_then_continues_then_leaves_a_finished_run(tmp_path):
    store = RunStore(tmp_path)
    cfg = RunConfig.from_toml(TINY_CONFIG)
    assert plan(None, cfg, "job-1", rank=1).run_dir == ""  # rank 1 of a new run, no store yet: nothing to read
    assert plan(store, cfg, "job-1", rank=1).run_dir == ""  # nor does it create anything
    first = plan(store, cfg, "job-1", rank=0)
    assert first.resume_from is None and first.run_id == "job-1" and store.get("job-1").status == "queued"
    ckpt = store.get("job-1").dir / "checkpoints" / "step_0000009.pt"
    ckpt.write_bytes(b"")
    store.set_status("job-1", "stopped")
    again = [plan(RunStore(tmp_path, read_only=True), cfg, "job-1", rank=1), plan(store, cfg, "job-1", rank=0)]
    assert [p.resume_from for p in again] == [str(ckpt)] * 2
    store.set_status("job-1", "finished")
    assert plan(store, cfg, "job-1", rank=0).finished


def test_rank_0_hands_its_plan_to_the_others(tmp_path):
    import torch.distributed as dist

    from studio.engine.training.torchrun import _receive, _send

    store = RunStore(tmp_path)
    cfg = RunConfig.from_toml(TINY_CONFIG)
    channel = dist.HashStore()
    sent = plan(store, cfg, None, rank=0, name="fresh")  # no id from anywhere: a fresh one, only rank 0 knows it
    _send(channel, sent)
    got = _receive(channel)
    assert (got.run_id, got.resume_from, got.finished) == (sent.run_id, None, False)
    assert got.config.to_dict() == cfg.to_dict() and got.run_dir == ""  # only rank 0 writes the run's folder


def test_a_user_file_travels_with_the_plan(tmp_path):
    import torch.distributed as dist

    from studio.engine.training.torchrun import _receive, _send
    from tests.own_code_files import user_model, write_user_files

    model, data = write_user_files(tmp_path / "tree")
    store = RunStore(tmp_path / "home")
    cfg = RunConfig().with_overrides(user_model(model, data, width=8))
    channel = dist.HashStore()
    sent = plan(store, cfg, None, rank=0)
    _send(channel, sent)
    model.write_text("# the user's tree changed after the run started\n")
    got = _receive(channel)  # a rank on a machine that has neither the user's tree nor the run folder
    for section, name in (("model", "my_models.py"), ("data", "my_data.py")):
        path = Path(getattr(got.config, section).params["path"])
        copy = Path(sent.run_dir) / "code" / name
        assert path.name == name and path.read_text() == copy.read_text() and not path.is_relative_to(sent.run_dir)
    assert "class MLP" in Path(got.config.model.params["path"]).read_text()  # the code the run started with
