import math
import sqlite3

import pytest

from studio.core.config import RunConfig
from studio.core.errors import ConfigError
from studio.core.runs.store import RunStore


def test_create_log_and_read_back(tmp_path):
    store = RunStore(tmp_path)
    run = store.create_run(RunConfig().with_overrides(["train.epochs=2"]))
    assert run.status == "queued" and (run.dir / "config.toml").exists()
    assert RunConfig.load(run.dir / "config.toml").train.epochs == 2
    store.log_metrics(run.id, [(1, "train/loss", 2.0, 0.0), (2, "train/loss", 1.5, 0.0), (2, "val/acc", 0.5, 0.0)])
    store.set_status(run.id, "finished", summary={"test_acc": 0.9})
    again = RunStore(tmp_path).get(run.id)  # a second connection (another process) sees it
    assert again.status == "finished" and again.summary["test_acc"] == 0.9
    assert store.metrics(run.id) == {"train/loss": ([1, 2], [2.0, 1.5]), "val/acc": ([2], [0.5])}
    assert store.params(run.id)["train.epochs"] == 2
    mode = sqlite3.connect(store.db_path).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_resolve_by_prefix_and_directory(tmp_path):
    store = RunStore(tmp_path)
    a = store.create_run(RunConfig())
    assert store.resolve(a.id[:-2]).id == a.id
    assert store.resolve(str(a.dir)).id == a.id
    with pytest.raises(ConfigError, match="no run"):
        store.resolve("nope")


def test_list_newest_first_and_delete(tmp_path):
    store = RunStore(tmp_path)
    first = store.create_run(RunConfig())
    second = store.create_run(RunConfig())
    store.set_status(second.id, "failed", "boom")
    ids = [r.id for r in store.list()]
    assert set(ids) == {first.id, second.id}
    assert store.get(second.id).message == "boom"
    store.delete(first.id)
    assert [r.id for r in store.list()] == [second.id] and not first.dir.exists()
    assert not math.isnan(store.get(second.id).created)
