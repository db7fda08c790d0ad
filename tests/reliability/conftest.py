"""Fault injection with real processes: helpers to start `studio train` in its own process group, wait
until it trains, and read the run store as the user's next command would."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

# Moons with a small MLP: a step takes milliseconds, so "many epochs" means "still training when the
# fault is injected", and every run here ends in seconds.
LONG = ["--set", "data.name=moons", "--set", "data.n_samples=300", "--set", "model.widths=16",
        "--set", "train.batch_size=32", "--set", "train.epochs=100000", "--set", "hardware.threads=1"]


def start_train(*args: str, env: dict | None = None) -> subprocess.Popen:
    """``python -m studio train --json ARGS`` in a new session (its own process group, like a job under
    a scheduler), stdout/stderr captured."""
    return subprocess.Popen([sys.executable, "-m", "studio", "train", "--json", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True, env=env)


def runs(home: Path) -> list:
    from studio.core.runs.store import RunStore

    store = RunStore(home)
    try:
        return store.list()
    finally:
        store.close()


def wait_training(home: Path, timeout: float = 60, min_step: int = 5, processes: int = 1) -> str:
    """The id of the one run in ``home`` once it has logged metrics past ``min_step``."""
    from studio.core.runs.store import RunStore

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if (home / "runs.db").exists():
            store = RunStore(home)
            try:
                for run in store.list():
                    steps = store.metrics(run.id).get("train/loss", ([], []))[0]
                    if run.status == "running" and steps and steps[-1] >= min_step:
                        return run.id
            finally:
                store.close()
        time.sleep(0.2)
    raise AssertionError("the run did not start training in time")


def rank_pids(home: Path, run_id: str) -> list[int]:
    """The rank pids the launcher recorded for the run."""
    import sqlite3

    db = sqlite3.connect(home / "runs.db")
    try:
        procs = json.loads(db.execute("SELECT procs FROM runs WHERE id=?", (run_id,)).fetchone()[0])
    finally:
        db.close()
    return [int(p.split(":")[0]) for p in procs["pids"]]


def semaphores(home: Path, run_id: str) -> list[str]:
    """The POSIX semaphore names of the launcher's queues, as recorded for the run."""
    import sqlite3

    db = sqlite3.connect(home / "runs.db")
    try:
        return json.loads(db.execute("SELECT procs FROM runs WHERE id=?", (run_id,)).fetchone()[0])["sems"]
    finally:
        db.close()


def finish(proc: subprocess.Popen, timeout: float = 30) -> tuple[int, dict, str]:
    """(exit code, the --json result, stderr) of a `studio train --json` process."""
    out, err = proc.communicate(timeout=timeout)
    lines = out.strip().splitlines()
    return proc.returncode, (json.loads(lines[-1]) if lines else {}), err


def error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("studio: error:")]


def gone(pids: list[int], timeout: float) -> bool:
    """Whether every pid has exited (reaped or a zombie) within ``timeout`` seconds."""
    from studio.core.host import procs

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not any(procs.state(p) not in ("", "Z", "X") for p in pids):
            return True
        time.sleep(0.1)
    return False


@pytest.fixture
def home(studio_home: Path) -> Path:
    studio_home.mkdir(parents=True, exist_ok=True)
    return studio_home


def kill_group(proc: subprocess.Popen, sig: int) -> None:
    os.killpg(proc.pid, sig)
