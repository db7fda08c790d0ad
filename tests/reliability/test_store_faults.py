"""Fault 6: a corrupt or unusable run store, and a full disk — one line, exit 2 (3 for a run that fails
mid-way, marked failed), nothing half-written, no run lost from the list."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import TINY_CONFIG, run_cli
from tests.reliability.conftest import error_lines
from tests.reliability.mounts import made_read_only, tmpfs


def one_error(result: subprocess.CompletedProcess, code: int = 2) -> str:
    assert result.returncode == code, result.stderr
    assert "Traceback" not in result.stderr
    lines = error_lines(result.stderr)
    assert len(lines) == 1, result.stderr
    return lines[0]


def recorded_run(home: Path) -> str:
    """A finished run as the store records it (no training needed to damage its database)."""
    from studio.core.config import RunConfig
    from studio.core.runs.store import RunStore

    store = RunStore(home)
    run = store.create_run(RunConfig.from_toml(TINY_CONFIG), "tiny")
    store.log_metrics(run.id, [(1, "train/loss", 0.5, 0.0)])
    store.set_status(run.id, "finished", "", {"epochs": 2, "test_acc": 0.9})
    store.close()
    return run.id


@pytest.mark.parametrize("damage", ["garbage", "truncated"])
def test_damaged_database_is_moved_aside_and_rebuilt(home, damage):
    run_id = recorded_run(home)
    db = home / "runs.db"
    for extra in ("runs.db-wal", "runs.db-shm"):
        (home / extra).unlink(missing_ok=True)
    if damage == "garbage":
        db.write_bytes(os.urandom(20_000))
    else:
        with open(db, "r+b") as fh:
            fh.truncate(db.stat().st_size // 3)
    listed = run_cli("runs", "--json")
    assert listed.returncode == 0 and "Traceback" not in listed.stderr, listed.stderr
    rows = json.loads(listed.stdout)["runs"]
    assert [r["run_id"] for r in rows] == [run_id]
    assert rows[0]["status"] == "finished" and "recovered" in rows[0]["message"] and rows[0]["test_acc"] == 0.9
    kept = list(home.glob("runs.db.corrupt-*"))
    assert kept, "the damaged database must be kept"


def test_database_that_is_a_folder(home):
    (home / "runs.db").mkdir(parents=True)
    line = one_error(run_cli("runs"))
    assert "runs.db" in line and "folder" in line


def test_read_only_home(home, tmp_path):
    """STUDIO_HOME on a read-only filesystem (root ignores file modes, so a read-only bind mount when
    running as root; chmod otherwise)."""
    ro = tmp_path / "ro"
    ro.mkdir()
    env = {**os.environ, "STUDIO_HOME": str(ro / "home")}
    with made_read_only(ro):
        for args in (("runs",), ("train", "--set", "data.name=moons", "--set", "train.epochs=1")):
            line = one_error(run_cli(*args, env=env))
            assert "STUDIO_HOME" in line or "read-only" in line, line


def test_full_disk_at_run_creation(tmp_path):
    """STUDIO_HOME on a full disk: one line, exit 2, no half-made run folder."""
    disk = tmp_path / "disk"
    prefix = tmpfs(disk, "1m")
    script = (f"open('{disk}/filler', 'wb').write(b'x' * 1000 * 1024)\n"
              "import subprocess, sys\n"
              f"r = subprocess.run([sys.executable, '-m', 'studio', 'train', '--set', 'data.name=moons'], "
              "capture_output=True, text=True, env={**__import__('os').environ, "
              f"'STUDIO_HOME': '{disk}/home'}})\n"
              "sys.stderr.write(r.stderr); import os\n"
              f"runs = os.listdir('{disk}/home/runs') if os.path.isdir('{disk}/home/runs') else []\n"
              "print(len(runs)); sys.exit(r.returncode)\n")
    result = subprocess.run([*prefix, sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    line = one_error(result)
    assert "full" in line or "No space" in line, line
    assert result.stdout.strip() == "0", "a half-made run was left behind"


def test_full_disk_mid_run_fails_it_cleanly(tmp_path):
    """The disk fills while a run trains: its checkpoint cannot be written. The run is marked failed with
    one line (exit 3), no temporary checkpoint is left, the store stays readable."""
    disk = tmp_path / "disk"
    prefix = tmpfs(disk, "12m")
    script = f"""
import json, os, subprocess, sys
env = {{**os.environ, "STUDIO_HOME": "{disk}/home"}}
sets = ["data.name=moons", "model.widths=512,512", "train.epochs=30", "train.checkpoint_every=1",
        "train.keep_checkpoints=0"]
args = [a for s in sets for a in ("--set", s)]
proc = subprocess.Popen([sys.executable, "-m", "studio", "train", "--json", *args], stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE, text=True, env=env)
out, err = proc.communicate(timeout=240)
sys.stderr.write(err)
ckpts = os.listdir("{disk}/home/runs/" + os.listdir("{disk}/home/runs")[0] + "/checkpoints")
listed = subprocess.run([sys.executable, "-m", "studio", "runs", "--json"], capture_output=True, text=True, env=env)
print(json.dumps({{"result": json.loads(out.splitlines()[-1]), "ckpts": ckpts, "runs": json.loads(listed.stdout)}}))
sys.exit(proc.returncode)
"""
    result = subprocess.run([*prefix, sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    line = one_error(result, code=3)
    report = json.loads(result.stdout.splitlines()[-1])
    assert "disk is full" in report["result"]["error"] and line.endswith(report["result"]["error"])
    assert not [c for c in report["ckpts"] if c.endswith(".tmp")], report["ckpts"]
    assert report["runs"]["runs"][0]["status"] == "failed"
