"""Resuming as a hostile or unlucky user would: a checkpoint of another architecture, fewer epochs than done,
two resumes of the same run at once. Each is one line on stderr, exit 2, and the run stays as it was."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys

import pytest

from studio.core.errors import ConfigError
from studio.core.runs.store import RunStore
from tests.conftest import run_cli

TINY = ["--set", "data.name=moons", "--set", "data.n_samples=200", "--set", "train.epochs=2",
        "--set", "train.checkpoint_every=1", "--set", "hardware.threads=1"]


def train(*extra: str) -> dict:
    done = run_cli("train", "--json", "--quiet", *TINY, *extra)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def one_error_line(stderr: str) -> str:
    """The one error line (``studio train``'s ``run ID: FOLDER`` header aside)."""
    lines = [line for line in stderr.splitlines() if line.strip() and not line.startswith("run ")]
    assert len(lines) == 1 and lines[0].startswith("studio: error: "), stderr
    assert "Traceback" not in stderr
    return lines[0]


@pytest.fixture
def swapped(home) -> dict:
    """A finished run whose final checkpoint was replaced by another architecture's."""
    run, other = train(), train("--set", "model.widths=8")
    store = RunStore(home)
    foreign = store.get(other["run_id"]).dir / "checkpoints" / "final.pt"
    for target in (store.get(run["run_id"]).dir / "checkpoints").glob("*.pt"):
        shutil.copyfile(foreign, target)
    return run


def test_resume_from_another_architecture_is_one_sentence_and_the_run_stays(home, swapped):
    out = run_cli("train", "--resume", swapped["run_id"], "--set", "train.epochs=3", "--json", "--quiet")
    assert out.returncode == 2, out.stderr
    line = one_error_line(out.stderr)
    assert "another architecture" in line and "step_" in line
    assert RunStore(home).get(swapped["run_id"]).status == "finished"
    result = json.loads(out.stdout.splitlines()[-1])
    assert result["status"] == "finished" and "another architecture" in result["error"]


@pytest.mark.parametrize("command", ["landscape", "sharpness"])
def test_analysis_of_another_architecture_is_one_sentence(home, swapped, command):
    out = run_cli(command, swapped["run_id"], "--samples", "50", "--quiet")
    assert out.returncode == 2, out.stderr
    assert "another architecture" in one_error_line(out.stderr)


def test_resume_with_fewer_epochs_than_done_is_refused(home):
    run = train("--set", "train.epochs=3")
    store = RunStore(home)
    store.set_status(run["run_id"], "stopped")  # as if stopped after its third epoch
    out = run_cli("train", "--resume", run["run_id"], "--set", "train.epochs=2", "--json")
    assert out.returncode == 2
    assert "3 epochs" in one_error_line(out.stderr)
    assert out.stdout == ""
    assert RunStore(home).get(run["run_id"]).status == "stopped"


def _stopped_run(home) -> str:
    """A finished 2-epoch run, marked stopped: resumable with train.epochs=4."""
    run = train()
    RunStore(home).set_status(run["run_id"], "stopped")
    return run["run_id"]


def test_a_run_held_by_another_process_is_not_resumed(home):
    from studio.core.runs.run_lock import RunLock

    run_id = _stopped_run(home)
    lock = RunLock(RunStore(home).get(run_id).dir)
    assert lock.acquire()  # as the process already training it holds it
    try:
        out = run_cli("train", "--resume", run_id, "--set", "train.epochs=4", "--json", "--quiet")
    finally:
        lock.release()
    assert out.returncode == 2
    assert "already being trained by another process" in one_error_line(out.stderr)
    assert out.stdout == ""  # like every refusal before a run starts: no result, the run is not touched
    store = RunStore(home)
    assert store.get(run_id).status == "stopped" and store.metrics(run_id)["epoch"][1] == [1, 2]


def test_two_resumes_at_once_train_the_run_once(home):
    run_id = _stopped_run(home)
    args = [sys.executable, "-m", "studio", "train", "--resume", run_id, "--set", "train.epochs=4", "--json",
            "--quiet"]
    procs = [subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    results = [(p.wait(120), p.stderr.read() if p.stderr else "") for p in procs]
    codes = sorted(code for code, _ in results)
    assert codes == [0, 2], results
    refused = next(err for code, err in results if code == 2)
    one_error_line(refused)
    store = RunStore(home)
    assert store.get(run_id).status == "finished"
    assert store.metrics(run_id)["epoch"][1] == [1, 2, 3, 4]
    twice = store._db.execute("SELECT name, step FROM metrics WHERE run_id=? GROUP BY name, step "
                              "HAVING COUNT(*) > 1", (run_id,)).fetchall()
    assert twice == []


def test_deleting_a_run_another_process_trains_is_refused(home):
    from tests.reliability.conftest import LONG, finish, kill_group, start_train, wait_training

    proc = start_train(*LONG)
    try:
        run_id = wait_training(home)
        store = RunStore(home)
        with pytest.raises(ConfigError, match="being trained by another process"):
            store.delete(run_id)
        assert store.get(run_id).dir.is_dir() and store.metrics(run_id)["train/loss"][0]
    finally:
        kill_group(proc, signal.SIGINT)
    code, result, err = finish(proc)
    assert code == 0 and result["status"] == "stopped" and "Traceback" not in err
    store = RunStore(home)
    store.delete(run_id)  # stopped: it can go now, every row with it
    for table, col in (("runs", "id"), ("metrics", "run_id"), ("params", "run_id")):
        assert store._db.execute(f"SELECT COUNT(*) FROM {table} WHERE {col}=?", (run_id,)).fetchone()[0] == 0
