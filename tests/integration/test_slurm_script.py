"""``studio export-config --torchrun``: the Slurm batch script and config it writes, and (slow) the script run
under a stand-in for Slurm where the real one-node Slurm (test_real_slurm.py) cannot go: two nodes (``srun``
starts one torchrun agent per "node" on this machine and, like the real one, kills them on SIGTERM; ``scancel``
signals step 0's tasks; ``scontrol`` names 127.0.0.1 and records a requeue): SIGTERM before the time limit ends
in a checkpoint on both nodes and a requeue, and the same script run again continues the same run to its end."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from studio.core.config import RunConfig
from studio.core.runs.store import RunStore
from tests.conftest import TINY_CONFIG, last_json, run_cli, wait_for
from tests.integration.test_torchrun import free_port


def export(tmp_path: Path, *args: str) -> dict:
    proc = run_cli("export-config", *args, "--json")
    assert proc.returncode == 0, proc.stderr
    return last_json(proc.stdout)


def test_script_and_config_from_a_file_and_from_a_run(tmp_path):
    config = tmp_path / "tiny.toml"
    config.write_text(TINY_CONFIG)
    out = export(tmp_path, "--config", str(config), "--torchrun", "--nodes", "2", "--gpus-per-node", "4",
                 "--partition", "gpu", "--time", "1-00:00:00", "--out", str(tmp_path / "job"),
                 "--studio-home", str(tmp_path / "shared"))
    assert out["world_size"] == 8 and out["ranks_per_node"] == 4
    script = Path(out["script"]).read_text()
    assert subprocess.run(["bash", "-n", out["script"]]).returncode == 0
    for line in ("#SBATCH --nodes=2", "#SBATCH --gpus-per-node=4", "#SBATCH --partition=gpu", "#SBATCH --requeue",
                 "#SBATCH --time=1-00:00:00", "#SBATCH --signal=B:TERM@120", "--nproc-per-node=4",
                 'scancel --signal=TERM "$SLURM_JOB_ID.0"', "-m studio.engine.training.agent",
                 "--rdzv-backend=c10d", '--rdzv-id="$SLURM_JOB_ID"', '--run-id "$RUN_ID"',
                 f"RUN_ID={out['run_id']}", f"export STUDIO_HOME={tmp_path / 'shared'}", "scontrol requeue"):
        assert line in script, line
    cfg = RunConfig.load(out["config"])
    assert cfg.hardware.device == "cuda" and cfg.hardware.processes == 8
    assert cfg.data.name == "moons" and cfg.model.params == RunConfig.load(config).model.params

    run = RunStore().create_run(RunConfig.load(config), name="mine")  # a run in the store: its config
    out = export(tmp_path, run.id, "--torchrun", "--set", "train.epochs=5", "--out", str(tmp_path / "j2"))
    assert "--gpus-per-node" not in Path(out["script"]).read_text()  # CPU ranks, gloo
    assert "#SBATCH --cpus-per-task=1" in Path(out["script"]).read_text()  # a core for each CPU rank
    cfg = RunConfig.load(out["config"])
    assert cfg.train.epochs == 5 and cfg.hardware.device == "cpu" and cfg.data.params["n_samples"] == 300
    assert "--name mine" in Path(out["script"]).read_text()


@pytest.mark.parametrize("args, words", [
    ((), "give a run"),
    (("--config", "nowhere.toml"), "nowhere.toml"),
    (("--config", "{config}", "--nodes", "2"), "add --torchrun"),
    (("--config", "{config}", "--torchrun", "--nodes", "0"), "--nodes"),
    (("--config", "{config}", "--torchrun", "--time", "soon"), "--time"),
    (("no-such-run", "--torchrun"), "no-such-run"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, words):
    config = tmp_path / "tiny.toml"
    config.write_text(TINY_CONFIG)
    proc = run_cli("export-config", *(a.replace("{config}", str(config)) for a in args), "--out", str(tmp_path / "o"))
    assert proc.returncode == 2 and words in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


FAKE_SRUN = """#!/bin/bash
# stand-in for srun: one copy of the command per node, on this machine (step 0: their pids for scancel)
while [[ "$1" == --* ]]; do shift; done
pids=()
for _ in $(seq "$SLURM_JOB_NUM_NODES"); do "$@" & pids+=($!); done
echo "${pids[@]}" > "$FAKE_SLURM_DIR/step0.pids"
trap 'echo "srun: forcing job termination"; kill -KILL "${pids[@]}" 2>/dev/null' TERM  # what real srun does
for p in "${pids[@]}"; do while kill -0 "$p" 2>/dev/null; do wait "$p"; done; done
"""
FAKE_SCANCEL = """#!/bin/bash
# stand-in for scancel --signal=TERM JOB.0: the signal to every task of step 0 (each node's torchrun agent)
[ "$1" = --signal=TERM ] && [ "$2" = "$SLURM_JOB_ID.0" ] && kill -TERM $(cat "$FAKE_SLURM_DIR/step0.pids")
"""
FAKE_SCONTROL = """#!/bin/bash
case "$1" in
  show) echo 127.0.0.1 ;;
  requeue) echo "$2" >> "$FAKE_SLURM_DIR/requeued" ;;
esac
"""


@pytest.mark.slow
def test_sigterm_before_the_limit_checkpoints_requeues_and_the_script_continues_the_run(tmp_path):
    fake = tmp_path / "fake-slurm"
    fake.mkdir()
    for name, text in (("srun", FAKE_SRUN), ("scontrol", FAKE_SCONTROL), ("scancel", FAKE_SCANCEL)):
        (fake / name).write_text(text)
        (fake / name).chmod(0o755)
    config = tmp_path / "long.toml"
    config.write_text(TINY_CONFIG.replace("epochs = 2", "epochs = 300\ncheckpoint_every = 5\nmetric_interval = 9"))
    home = tmp_path / "shared"
    out = export(tmp_path, "--config", str(config), "--torchrun", "--nodes", "2", "--signal-seconds", "30",
                 "--out", str(tmp_path / "job"), "--studio-home", str(home))
    env = dict(os.environ, PATH=f"{fake}:{os.environ['PATH']}", FAKE_SLURM_DIR=str(fake), SLURM_JOB_ID="4242",
               SLURM_JOB_NUM_NODES="2", SLURM_JOB_NODELIST="node[1-2]", STUDIO_PYTHON=sys.executable,
               STUDIO_RDZV_PORT=str(free_port()), STUDIO_TORCHRUN_ARGS="--local-addr 127.0.0.1",
               GLOO_SOCKET_IFNAME="lo", OMP_NUM_THREADS="1", PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    env.pop("STUDIO_HOME")
    run_id = out["run_id"]
    ckpts = home / "runs" / run_id / "checkpoints"
    job = subprocess.Popen(["bash", out["script"]], env=env, cwd=tmp_path, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
    wait_for(lambda: ckpts.is_dir() and any(p.name != "step_0000000.pt" for p in ckpts.glob("step_*.pt")), 120,
             "a checkpoint after step 0")
    job.send_signal(signal.SIGTERM)  # what --signal=B:TERM@30 does 30 s before the time limit
    text, _ = job.communicate(timeout=120)
    assert (fake / "requeued").read_text().split() == ["4242"], text[-3000:]
    assert "Traceback" not in text and "torchrun agent stopped by SIGTERM" in text, text[-3000:]
    run = RunStore(home).get(run_id)
    assert run.status == "stopped" and "SIGTERM" in run.message, (run.status, run.message, text[-3000:])
    stopped_at = run.summary["steps"]
    assert 0 < stopped_at < 9 * 300
    assert run.last_checkpoint and int(run.last_checkpoint.stem.split("_")[1]) == stopped_at

    again = subprocess.run(["bash", out["script"]], env=env, cwd=tmp_path, capture_output=True, text=True,
                           timeout=300)  # Slurm starts the requeued job: the same script
    assert f"run {run_id} (continuing from step_{stopped_at:07d}.pt)" in again.stdout + again.stderr
    run = RunStore(home).get(run_id)
    assert run.status == "finished" and run.summary["steps"] == 9 * 300 and run.summary["world_size"] == 2
    steps = RunStore(home).metrics(run_id)["train/loss"][0]
    assert steps == sorted(set(steps)) and steps[-1] == 9 * 300  # one curve, no step twice
    assert [r.id for r in RunStore(home).list()] == [run_id]
