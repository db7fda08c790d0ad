"""Resuming as a hostile or unlucky user would: a checkpoint of another architecture, fewer epochs than done,
two resumes of the same run at once. Each is one line on stderr, exit 2, and the run stays as it was."""

from __future__ import annotations

import json
import shutil

import pytest

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
