"""Real `studio train` runs in subprocesses: 1 and 2 CPU ranks, errors, exit codes, Ctrl+C."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from studio.core.runs.store import RunStore
from tests.conftest import run_cli, wait_for

KEYS = {"run_id", "status", "epochs", "steps", "train_loss", "val_loss", "val_acc", "test_acc", "world_size",
        "device", "seconds"}


def last_json(stdout: str) -> dict:
    return json.loads(stdout.strip().splitlines()[-1])


def test_default_run_reaches_the_accuracy_target():
    proc = run_cli("train", "--json")
    assert proc.returncode == 0, proc.stderr
    result = last_json(proc.stdout)
    assert KEYS <= set(result)
    assert result["status"] == "finished" and result["epochs"] == 5 and result["world_size"] == 1
    assert result["test_acc"] >= 0.82, result
    assert "epoch 5/5" in proc.stderr  # progress on stderr
    run = RunStore().get(result["run_id"])
    assert run.status == "finished" and abs(run.summary["test_acc"] - result["test_acc"]) < 1e-12
    assert len(RunStore().metrics(run.id)["train/loss"][0]) >= 355 // 20


def test_two_ranks_train_together_and_improve(tmp_path):
    import torch

    proc = run_cli("train", "--json", "--set", "hardware.processes=2", "--set", "train.epochs=2")
    assert proc.returncode == 0, proc.stderr
    result = last_json(proc.stdout)
    assert result["world_size"] == 2 and result["status"] == "finished"
    assert result["test_acc"] > 0.8  # from 0.1 at chance: both ranks learned one model
    losses = RunStore().metrics(result["run_id"])["train/loss"][1]
    assert losses[-1] < 0.5 * losses[0]
    final = torch.load(Path(RunStore().get(result["run_id"]).dir) / "checkpoints" / "final.pt", weights_only=True)
    assert final["step"] == result["steps"] == 2 * 71  # global batch 128 = 2 × 64: as many steps as 1 rank


def test_config_file_and_listing(tmp_path):
    config = tmp_path / "moons.toml"
    config.write_text('[data]\nname = "moons"\nn_samples = 300\n[model]\nname = "mlp"\nwidths = [16]\n'
                      '[train]\nepochs = 3\nbatch_size = 32\n')
    proc = run_cli("train", "--config", str(config), "--json", "--set", "optimizer.lr=0.01")
    assert proc.returncode == 0, proc.stderr
    result = last_json(proc.stdout)
    runs = json.loads(run_cli("runs", "--json").stdout.strip().splitlines()[-1])["runs"]
    assert [r["run_id"] for r in runs] == [result["run_id"]] and runs[0]["status"] == "finished"
    listing = json.loads(run_cli("list", "optimizers", "--json").stdout)
    assert {"sgd", "adam"} <= {e["name"] for e in listing["optimizers"]}


def test_user_errors_exit_2_with_one_line():
    for args in (["--set", "model.name=nope"], ["--config", "/no/such.toml"], ["--set", "train.epochs=zero"]):
        proc = run_cli("train", *args)
        assert proc.returncode == 2, (args, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("studio: error:") and "Traceback" not in proc.stderr


def test_model_that_does_not_fit_the_data_is_a_user_error():
    proc = run_cli("train", "--json", "--set", "data.name=moons", "--set", "model.name=cnn")
    assert proc.returncode == 2
    assert "image data" in proc.stderr and "Traceback" not in proc.stderr
    assert last_json(proc.stdout)["status"] == "failed"


def test_divergence_fails_with_exit_3_naming_step_and_lr():
    proc = run_cli("train", "--json", "--set", "optimizer.name=sgd", "--set", "optimizer.lr=80",
                   "--set", "train.epochs=1")
    assert proc.returncode == 3, proc.stderr
    result = last_json(proc.stdout)
    assert result["status"] == "failed"
    assert "step" in result["error"] and "learning rate 80" in result["error"] and "lower" in result["error"]


def children_of(pid: int) -> set[int]:
    out = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.add(int(stat.parent.name))
    return out


def test_ctrl_c_stops_all_ranks_checkpoints_and_leaves_no_process():
    env = dict(os.environ)
    proc = subprocess.Popen([sys.executable, "-m", "studio", "train", "--json", "--set", "train.epochs=200",
                             "--set", "hardware.processes=2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    store = RunStore()
    deadline = time.monotonic() + 120
    ranks: set[int] = set()
    while time.monotonic() < deadline:  # wait until training is under way
        runs = store.list()
        ranks |= children_of(proc.pid)
        if runs and store.metrics(runs[0].id).get("train/loss"):
            break
        time.sleep(0.2)
    ranks |= children_of(proc.pid)
    assert len(ranks) >= 2
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert time.monotonic() - t0 < 10, "stopping took too long"
    assert proc.returncode == 0, err
    result = last_json(out)
    assert result["status"] == "stopped" and 0 < result["steps"] < 200 * 71
    run = store.get(result["run_id"])
    assert run.status == "stopped"
    assert (run.dir / "checkpoints" / "final.pt").exists()
    wait_for(lambda: not [p for p in ranks if Path(f"/proc/{p}").exists() and "studio" in _cmdline(p)], 5,
             f"the ranks {sorted(ranks)} to exit")


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return ""
