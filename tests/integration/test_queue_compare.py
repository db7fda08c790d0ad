"""The queue and the compare table on real short runs (the shared ``queued_runs`` fixture: three tiny CPU runs
from a sweep, one cancelled, one more added): order, one at a time, cancel; `studio compare` on the result; and a
queue that outlives the process that filled it."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from studio.core.runs.queue import RunQueue
from studio.core.runs.store import ENDED, RunStore
from tests.conftest import TINY_CONFIG, last_json, run_cli, wait_for


def test_queue_runs_one_after_another_and_cancelled_never_starts(queued_runs):
    home, env, store, ids = queued_runs
    ran = ids[:1] + ids[2:]
    assert [store.get(i).status for i in ran] == ["finished"] * 3
    entries = {e.run_id: e for e in RunQueue(store).entries(include_over=True)}
    spans = sorted((entries[i].started, entries[i].ended) for i in ran)
    assert all(prev[1] <= nxt[0] for prev, nxt in zip(spans, spans[1:], strict=False))  # one at a time on CPU
    assert [entries[i].started for i in ran] == sorted(entries[i].started for i in ran)  # in queue order
    cancelled = store.get(ids[1])
    assert cancelled.status == "cancelled" and entries[ids[1]].started is None
    assert store.metrics(ids[1]) == {} and not (Path(cancelled.dir) / "checkpoints" / "final.pt").exists()
    assert "started on cpu" in (home / "queue.log").read_text()


def test_compare_table_and_diff_of_real_runs(queued_runs):
    _, env, store, ids = queued_runs
    proc = run_cli("compare", ids[0], ids[2], ids[3], "--json", env=env)
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


GUI_THEN_EXIT = """
import os, sys
from studio.core.config import RunConfig
from studio.engine.port import engine
from studio.gui.session.session import Session
from PySide6.QtWidgets import QApplication
app = QApplication([])
session = Session(engine=engine())
session.set_config(RunConfig.from_toml(sys.argv[1]))
print(session.enqueue()[0], flush=True)
os._exit(0)  # the window's process ends abruptly: no clean-up of any kind
"""


def test_the_queue_outlives_the_process_that_filled_it(studio_home):
    proc = subprocess.run([sys.executable, "-c", GUI_THEN_EXIT, TINY_CONFIG.replace("epochs = 2", "epochs = 1")],
                          capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))
    assert proc.returncode == 0, proc.stderr
    run_id = proc.stdout.strip().splitlines()[-1]
    store = RunStore(studio_home)
    wait_for(lambda: store.get(run_id).status in ENDED, 120, "the queued run")
    assert store.get(run_id).status == "finished"
    wait_for(lambda: RunQueue(store).lease_holder() is None, 30, "the scheduler to exit")


def test_queue_user_errors_exit_2_with_one_line_and_queue_nothing(studio_home):
    for args in (["add", "--set", "model.name=nope"], ["cancel", "nope"], ["sweep", "--vary", "optimizer.lr"],
                 ["sweep", "--vary", "optimizer.lr=1:0:1"], ["sweep", "--vary", "train.epochs=2,0"]):
        proc = run_cli("queue", *args, "--no-start") if args[0] != "cancel" else run_cli("queue", *args)
        lines = proc.stderr.strip().splitlines()
        assert proc.returncode == 2 and len(lines) == 1 and lines[0].startswith("studio: error:"), (args, proc.stderr)
    assert RunStore(studio_home).list() == []  # a sweep with one bad value queues none of its runs
