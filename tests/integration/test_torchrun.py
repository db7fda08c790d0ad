"""The real ``torchrun`` on the CPU, loopback only: one node × 2 processes, two nodes on one machine (two
agents, ``--nnodes 2 --node-rank 0|1``, c10d rendezvous on 127.0.0.1), and an elastic restart after a rank is
killed mid-run. The run finishes, rank 0 alone writes the store, the world size is right and the metrics
are averaged over all ranks (they match a one-process run of the same global batch, step by step)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from studio.core.runs.store import RunStore
from tests.conftest import last_json, run_cli, wait_for

# 300 moons points, 9 steps an epoch; a metric row every step, a checkpoint every 2 epochs.
CONFIG = ('[data]\nname = "moons"\nn_samples = 300\n[model]\nname = "mlp"\nwidths = [16]\n'
          '[optimizer]\nname = "sgd"\nlr = 0.1\n'
          '[train]\nepochs = 12\nbatch_size = 32\nmetric_interval = 1\ncheckpoint_every = 2\n')


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def torchrun(config: Path, home: Path, *, nnodes: int = 1, node_rank: int = 0, nproc: int = 2, port: int,
             rdzv_id: str, extra: tuple[str, ...] = (), cwd: Path | None = None) -> subprocess.Popen:
    """One torchrun agent, everything on 127.0.0.1 (rendezvous, the store's address, gloo's interface)."""
    env = dict(os.environ, STUDIO_HOME=str(home), GLOO_SOCKET_IFNAME="lo", OMP_NUM_THREADS="1",
               PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    cmd = [sys.executable, "-m", "torch.distributed.run", "--nnodes", str(nnodes), "--node-rank", str(node_rank),
           "--nproc-per-node", str(nproc), "--rdzv-backend", "c10d", "--rdzv-endpoint", f"127.0.0.1:{port}",
           "--rdzv-id", rdzv_id, "--local-addr", "127.0.0.1", *extra,
           "-m", "studio.engine.worker", "--config", str(config)]
    return subprocess.Popen(cmd, env=env, cwd=cwd or home.parent, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)


def finish(proc: subprocess.Popen, timeout: float = 180) -> str:
    out, _ = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, out[-3000:]
    return out


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The same run in one process (``studio train``): losses per step, to compare the ranks' average with."""
    home = tmp_path_factory.mktemp("reference")
    config = home / "run.toml"
    config.write_text(CONFIG)
    proc = run_cli("train", "--config", str(config), "--json", "--quiet", env=dict(os.environ, STUDIO_HOME=str(home)))
    assert proc.returncode == 0, proc.stderr
    run_id = last_json(proc.stdout)["run_id"]
    return RunStore(home).get(run_id), RunStore(home).metrics(run_id)


def check_recorded(home: Path, run_id: str, reference) -> None:
    """One run in the store (rank 0 alone wrote it), finished, world size 2, and each step's loss and accuracy
    equal to the one-process run's: the average over both ranks' halves of every global batch."""
    store = RunStore(home)
    runs = store.list()
    assert [r.id for r in runs] == [run_id]
    assert sorted(p.name for p in store.runs_dir.iterdir()) == [run_id]
    run = runs[0]
    assert run.status == "finished" and run.summary["world_size"] == 2, (run.status, run.message)
    ref_run, ref_metrics = reference
    assert run.summary["steps"] == ref_run.summary["steps"] == 9 * 12
    metrics = store.metrics(run_id)
    for name in ("train/loss", "train/acc", "val/loss"):
        steps, values = metrics[name]
        ref_steps, ref_values = ref_metrics[name]
        assert steps == ref_steps, name  # every step once: nobody else wrote rows
        assert values == pytest.approx(ref_values, abs=2e-5), name
    assert (run.dir / "checkpoints" / "final.pt").exists()


def test_one_node_two_processes(tmp_path, reference):
    home, config = tmp_path / "home", tmp_path / "run.toml"
    config.write_text(CONFIG)
    out = finish(torchrun(config, home, port=free_port(), rdzv_id="single", cwd=tmp_path))
    check_recorded(home, "torchrun-single", reference)
    assert "run torchrun-single (new)" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home", "run.toml"]  # rank 1 wrote nothing anywhere


def test_two_nodes_on_one_machine(tmp_path, reference):
    home, config = tmp_path / "home", tmp_path / "run.toml"
    config.write_text(CONFIG)
    port = free_port()
    agents = [torchrun(config, home, nnodes=2, node_rank=r, nproc=1, port=port, rdzv_id="two-nodes")
              for r in (0, 1)]
    outs = [finish(a) for a in agents]
    check_recorded(home, "torchrun-two-nodes", reference)
    assert sum("run torchrun-two-nodes (new)" in o for o in outs) == 1  # one rank 0, on one of the agents


def rank_pid(marker: str, rank: int) -> int | None:
    """The pid of the worker with RANK=rank whose environment holds ``marker`` (this test's STUDIO_HOME)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            env = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if f"STUDIO_HOME={marker}".encode() in env and f"RANK={rank}".encode() in env \
                and b"TORCHELASTIC_RESTART_COUNT=0" in env:
            return int(entry.name)
    return None


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="finds the rank's pid in /proc")
def test_killed_rank_is_restarted_and_the_run_continues_from_its_checkpoint(tmp_path, reference):
    home, config = tmp_path / "home", tmp_path / "run.toml"
    config.write_text(CONFIG)
    agent = torchrun(config, home, port=free_port(), rdzv_id="elastic", extra=("--max-restarts", "1"))
    ckpts = home / "runs" / "torchrun-elastic" / "checkpoints"

    def mid_run() -> bool:
        return any(p.name != "step_0000000.pt" for p in ckpts.glob("step_*.pt")) if ckpts.is_dir() else False

    wait_for(lambda: (ckpts / "step_0000000.pt").exists(), 120, "training to start")
    pid = rank_pid(str(home), 1)
    assert pid is not None
    # Rank 1 runs in short slices (the others wait for it in each step's collective), so the kill lands mid-run
    # however fast the machine is: after a checkpoint past step 0, long before the end.
    os.kill(pid, signal.SIGSTOP)
    deadline = time.monotonic() + 120
    while not mid_run() and time.monotonic() < deadline:
        os.kill(pid, signal.SIGCONT)
        time.sleep(0.02)  # rank 1's short slice of running
        os.kill(pid, signal.SIGSTOP)
        time.sleep(0.05)  # rank 0 finishes writing a checkpoint it has the states for
    os.kill(pid, signal.SIGKILL)
    steps_before = RunStore(home).metrics("torchrun-elastic")["train/loss"][0]
    assert mid_run() and steps_before[-1] < 9 * 12  # killed mid-run
    out = finish(agent)
    assert "continuing from step_" in out, out[-3000:]  # the second attempt resumed, not restarted from 0
    check_recorded(home, "torchrun-elastic", reference)  # the same curves as a run never interrupted


def test_the_worker_entry_keeps_its_exit_code_when_it_skips_finalisation(tmp_path):
    """``python -m studio.engine.worker`` leaves by ``os._exit`` (engine/jobs/exit.py): a config
    error still prints its one line and exits 2, the run-store contract."""
    env = dict(os.environ, STUDIO_HOME=str(tmp_path / "home"), PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    proc = subprocess.run([sys.executable, "-m", "studio.engine.worker", "--config", str(tmp_path / "missing.toml")],
                          env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().splitlines() == [f"studio: error: cannot read config file {tmp_path / 'missing.toml'}: "
                                                "No such file or directory"]


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="finds the ranks' pids in /proc")
def test_a_killed_torchrun_run_is_listed_interrupted_within_a_minute(tmp_path):
    """A torchrun run records no pids the store can check: rank 0's heartbeat (every 10 s, from a thread) is
    what says it lives. The agent and both ranks killed with SIGKILL: `studio runs` says interrupted within
    STALE_S (a minute) of the last beat, not an hour."""
    from studio.core.runs.store import STALE_S

    home, config = tmp_path / "home", tmp_path / "run.toml"
    config.write_text(CONFIG.replace("epochs = 12", "epochs = 100000"))
    agent = torchrun(config, home, port=free_port(), rdzv_id="killed")
    env = dict(os.environ, STUDIO_HOME=str(home))

    def listed() -> str:
        runs = last_json(run_cli("runs", "--json", env=env).stdout)["runs"]
        return runs[0]["status"] if runs else ""

    ckpt = home / "runs" / "torchrun-killed" / "checkpoints" / "step_0000000.pt"
    wait_for(lambda: ckpt.exists() and listed() == "running", 120, "the run to start")
    pids = [rank_pid(str(home), r) for r in (0, 1)]
    assert all(pids)
    agent.kill()
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    agent.communicate(timeout=30)
    killed = time.monotonic()
    assert listed() == "running"  # nothing tells yet: the last beat is recent
    wait_for(lambda: listed() == "interrupted", STALE_S + 20, "the run listed as interrupted")
    assert time.monotonic() - killed <= STALE_S + 20
    run = RunStore(home).get("torchrun-killed")
    assert run.status == "interrupted" and "studio train --resume torchrun-killed" in run.message
