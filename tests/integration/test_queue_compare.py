"""The queue and the compare table on real short runs: a sweep of three tiny CPU runs plus one cancelled,
served by the detached scheduler that `studio queue sweep` starts; `studio compare` on the result."""

import json
import os
import time
from pathlib import Path

import pytest

from studio.core.run_queue import RunQueue
from studio.core.runs import RunStore
from tests.conftest import run_cli

TINY = ('[data]\nname = "moons"\nn_samples = 300\n[model]\nname = "mlp"\nwidths = [16]\n'
        '[train]\nepochs = 2\nbatch_size = 32\n')


def wait_for(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.2)


def last_json(stdout: str) -> dict:
    return json.loads(stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    """Four tiny runs queued by a sweep over the learning rate; the second is cancelled at once."""
    home = tmp_path_factory.mktemp("queue_home")
    config = home / "tiny.toml"
    config.write_text(TINY)
    env = dict(os.environ, STUDIO_HOME=str(home))
    proc = run_cli("queue", "sweep", "--config", str(config), "--vary", "optimizer.lr=0.003,0.3,0.03,0.01",
                   "--no-start", "--json", env=env)
    assert proc.returncode == 0, proc.stderr
    ids = last_json(proc.stdout)["run_ids"]
    assert run_cli("queue", "cancel", ids[1], env=env).returncode == 0
    listing = last_json(run_cli("queue", "list", "--json", env=env).stdout)["queue"]
    assert [(e["run_id"], e["position"]) for e in listing] == [(ids[0], 1), (ids[2], 2), (ids[3], 3)]
    proc = run_cli("queue", "add", "--config", str(config), "--set", "train.epochs=1", "--json", env=env)
    assert proc.returncode == 0, proc.stderr  # this one starts the detached scheduler
    ids.append(last_json(proc.stdout)["run_id"])
    store = RunStore(home)
    wait_for(lambda: all(store.get(i).status in ("finished", "failed") for i in ids[:1] + ids[2:]), 180, "the queue")
    wait_for(lambda: RunQueue(store).lease_holder() is None, 30, "the scheduler to exit")
    return home, env, store, ids


def test_queue_runs_one_after_another_and_cancelled_never_starts(swept):
    home, env, store, ids = swept
    ran = ids[:1] + ids[2:]
    assert [store.get(i).status for i in ran] == ["finished"] * 4
    entries = {e.run_id: e for e in RunQueue(store).entries(include_over=True)}
    spans = sorted((entries[i].started, entries[i].ended) for i in ran)
    assert all(prev[1] <= nxt[0] for prev, nxt in zip(spans, spans[1:], strict=False))  # one at a time on CPU
    assert [entries[i].started for i in ran] == sorted(entries[i].started for i in ran)  # in queue order
    cancelled = store.get(ids[1])
    assert cancelled.status == "cancelled" and entries[ids[1]].started is None
    assert store.metrics(ids[1]) == {} and not (Path(cancelled.dir) / "checkpoints" / "final.pt").exists()
    assert "started on cpu" in (home / "queue.log").read_text()


def test_compare_table_and_diff_of_real_runs(swept):
    _, env, store, ids = swept
    proc = run_cli("compare", ids[0], ids[2], ids[4], "--json", env=env)
    assert proc.returncode == 0, proc.stderr
    table = last_json(proc.stdout)
    assert table["differing"] == ["optimizer.lr", "train.epochs"]
    assert [r["settings"]["optimizer.lr"] for r in table["runs"]] == [0.003, 0.03, 0.001]
    assert [r["settings"]["train.epochs"] for r in table["runs"]] == [2, 2, 1]
    for run in table["runs"]:
        assert run["metrics"]["test_acc"] == pytest.approx(store.get(run["run_id"]).summary["test_acc"])
    text = run_cli("compare", ids[0], ids[2], "--diff", "--changed", env=env).stdout.splitlines()
    assert len(text) == 2 and text[1].split()[:3] == ["optimizer.lr", "0.003", "0.03"]
    full = last_json(run_cli("compare", ids[0][-4:], ids[2][-4:], "--diff", "--json", env=env).stdout)["diff"]
    assert sum(not d["same"] for d in full) == 1 and len(full) > 20
    bad = run_cli("compare", ids[0], env=env)
    assert bad.returncode == 2 and "at least two runs" in bad.stderr
