"""Faults 1–3: SIGTERM to the process group, the launcher killed, the whole group killed."""

from __future__ import annotations

import os
import signal
import time

from tests.conftest import run_cli, wait_for
from tests.reliability.conftest import (
    LONG,
    error_lines,
    finish,
    gone,
    kill_group,
    rank_pids,
    runs,
    semaphores,
    start_train,
    wait_training,
)


def test_sigterm_to_the_group_stops_like_ctrl_c(home):
    """`timeout`, systemd, Slurm and docker send SIGTERM to the whole group: all ranks stop at the same
    step with a checkpoint, the run is "stopped", exit 0, within 10 s."""
    proc = start_train(*LONG, "--set", "hardware.processes=2")
    run_id = wait_training(home)
    sent = time.monotonic()
    kill_group(proc, signal.SIGTERM)
    code, result, err = finish(proc)
    assert time.monotonic() - sent < 10
    assert code == 0, err
    assert result["status"] == "stopped" and "error" not in result
    run = runs(home)[0]
    assert run.id == run_id and run.status == "stopped" and "SIGTERM" in run.message
    assert (run.dir / "checkpoints" / "final.pt").exists() and run.last_checkpoint.name != "step_0000000.pt"
    assert not list((run.dir / "checkpoints").glob("*.tmp")) and not list((run.dir / "checkpoints").glob(".*"))


def test_killed_launcher_leaves_no_orphans(home):
    """The launcher killed with -9 (train.metric_interval=1: the case that hung at exit): the ranks notice
    within a few seconds, stop with a checkpoint and exit; the run says why."""
    proc = start_train(*LONG, "--set", "train.metric_interval=1")
    run_id = wait_training(home)
    ranks = rank_pids(home, run_id)
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=10)
    assert gone(ranks, timeout=15), "ranks kept running after their launcher died"
    run = runs(home)[0]
    assert run.status == "stopped", run.message
    assert "went away" in run.message
    assert run.last_checkpoint is not None and (run.dir / "checkpoints" / "final.pt").exists()


def test_group_killed_shows_interrupted_and_resumes(home):
    """The whole group killed with -9: nobody records an end, yet `studio runs` shows the run as
    interrupted (rank pids are gone), with its last checkpoint, and it resumes to the end."""
    # 2,000 epochs of 3 steps: ~6 s on an idle core, so the kill lands mid-run even on a quiet machine
    # (400 epochs finished in 1.3 s, before the checkpoints this waits for); a checkpoint every 0.18 s
    proc = start_train(*LONG[:-6], "--set", "train.epochs=2000", "--set", "train.checkpoint_minutes=0.003",
                       "--set", "hardware.threads=1")
    run_id = wait_training(home, min_step=50)
    folder = runs(home)[0].dir / "checkpoints"
    wait_for(lambda: len(list(folder.glob("step_*.pt"))) >= 3, 30, "time-based checkpoints")
    ranks = rank_pids(home, run_id)
    sems = semaphores(home, run_id)
    assert sems and all(os.path.exists(f"/dev/shm/sem.{name.lstrip('/')}") for name in sems)
    kill_group(proc, signal.SIGKILL)
    proc.communicate(timeout=10)
    assert gone(ranks, timeout=5)
    listed = run_cli("runs", "--json")
    assert listed.returncode == 0, listed.stderr
    import json

    row = json.loads(listed.stdout)["runs"][0]
    assert row["status"] == "interrupted" and row["last_checkpoint"], row
    left = [name for name in sems if os.path.exists(f"/dev/shm/sem.{name.lstrip('/')}")]
    assert not left, f"semaphores not freed: {left} of {sems}"
    assert "--resume" in row["message"]
    resumed = run_cli("train", "--resume", run_id, "--json", "--quiet", timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    result = json.loads(resumed.stdout.splitlines()[-1])
    assert result["run_id"] == run_id and result["status"] == "finished" and result["epochs"] == 2000
    assert not error_lines(resumed.stderr)
    from studio.core.runs.store import RunStore

    twice = RunStore(home)._db.execute("SELECT name, step FROM metrics WHERE run_id=? GROUP BY name, step "
                                       "HAVING COUNT(*) > 1", (run_id,)).fetchall()
    assert twice == [], f"metric rows written twice at the resume step: {twice[:5]}"
