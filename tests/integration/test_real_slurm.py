"""The script ``studio export-config --torchrun`` writes, submitted with ``sbatch`` to a real one-node Slurm on
127.0.0.1 (tests/integration/real_slurm.py: munged, slurmctld, slurmd, stopped by pid at the end): a plain
2-rank CPU run finishes and is listed; ``scancel --signal=TERM --batch`` mid-run checkpoints, requeues and the
requeued job continues from that checkpoint to the same end as the run never interrupted; a ``--time`` limit
shorter than the run finishes it over several allocations. Skipped without Slurm unless STUDIO_REQUIRE_SLURM
is set (CI's slow step), then it fails.

Slurm holds a requeued job for two minutes before it may start again (``Reason=BeginTime``); the tests release
it after two seconds (``scontrol update JobId=… StartTime=now``), as an admin could, to keep the file to a few
minutes. Not at once: a credential issued in the same second as the old allocation's revocation is refused and the
job fails ("Killing non-startable batch JobId=…: Job credential revoked", seen once in CI)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from studio.core.runs.store import RunStore
from tests.conftest import TINY_CONFIG, last_json, run_cli
from tests.integration import real_slurm
from tests.integration.test_torchrun import free_port

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
# 300 epochs of 9 steps, a checkpoint every 5 epochs: long enough to be stopped mid-run, a few seconds a 1000 steps
LONG = TINY_CONFIG.replace("epochs = 2", "epochs = 300\ncheckpoint_every = 5\nmetric_interval = 9")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    why = real_slurm.available()
    if why:
        if os.environ.get("STUDIO_REQUIRE_SLURM"):
            pytest.fail(f"STUDIO_REQUIRE_SLURM is set but {why}")
        pytest.skip(why)
    # a short root: Slurm and munge put sockets under it
    cluster = real_slurm.start(Path(tmp_path_factory.mktemp("slurm")))
    try:
        yield cluster
    finally:
        cluster.stop()


def submit(cluster: real_slurm.Cluster, tmp_path: Path, config_text: str, *args: str) -> tuple[str, str, Path]:
    """Export ``config_text`` for 1 node × 2 CPU ranks and sbatch it: (job id, run id, STUDIO_HOME)."""
    config = tmp_path / "run.toml"
    config.write_text(config_text)
    home = tmp_path / "home"
    proc = run_cli("export-config", "--config", str(config), "--torchrun", "--procs-per-node", "2", *args,
                   "--out", str(tmp_path / "job"), "--studio-home", str(home), "--json")
    assert proc.returncode == 0, proc.stderr
    out = last_json(proc.stdout)
    env = dict(cluster.env, STUDIO_PYTHON=sys.executable, STUDIO_RDZV_PORT=str(free_port()),
               STUDIO_TORCHRUN_ARGS="--local-addr 127.0.0.1", GLOO_SOCKET_IFNAME="lo", OMP_NUM_THREADS="1",
               PYTHONPATH=str(ROOT))
    env.pop("STUDIO_HOME", None)
    job = cluster.run("sbatch", "--parsable", f"--chdir={tmp_path}", out["script"], check=True)
    return job.stdout.strip().split(";")[0], out["run_id"], home


def job_log(tmp_path: Path) -> str:
    return "\n".join(p.read_text(errors="replace") for p in tmp_path.glob("studio-*.out"))


def wait_job(cluster: real_slurm.Cluster, job: str, tmp_path: Path, timeout: float, release: bool = True,
             until=None) -> int:  # noqa: ANN001 - a predicate
    """Wait for the job to complete (or ``until()``), releasing it from Slurm's requeue hold; its restarts."""
    deadline = time.monotonic() + timeout
    held_since = None  # when the job was first seen held after a requeue
    while time.monotonic() < deadline:
        state = cluster.job_state(job)
        if until is not None and until():
            break
        if state == "COMPLETED" and until is None:
            break
        if state in ("FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY"):
            raise AssertionError(f"job {job} ended {state}\n{job_log(tmp_path)[-4000:]}\n{cluster.logs()}")
        held = release and state == "PENDING" and cluster.job_field(job, "Reason") == "BeginTime"
        held_since = (held_since or time.monotonic()) if held else None
        # slurmd revokes the old allocation's credential at the second of the kill and refuses a new credential
        # issued within that same second ("Job credential revoked", the job FAILED): release it 2 s after the hold
        # began, never at once (Slurm itself holds it two minutes)
        if held_since is not None and time.monotonic() - held_since >= 2:
            cluster.run("scontrol", "update", f"JobId={job}", "StartTime=now", check=False)
        time.sleep(1)
    else:
        raise AssertionError(f"job {job} still {cluster.job_state(job)} after {timeout:.0f} s\n"
                             f"{job_log(tmp_path)[-4000:]}")
    return int(cluster.job_field(job, "Restarts") or 0)


def final_metrics(home: Path, run_id: str) -> dict[str, float]:
    """Every curve's last value, but for the clock's (throughput)."""
    return {name: values[-1] for name, (_, values) in RunStore(home).metrics(run_id).items()
            if name != "throughput"}


@pytest.fixture(scope="module")
def plain_run(cluster, tmp_path_factory):
    """The long config run start to end, never interrupted: (home, run id, its final metrics)."""
    tmp = tmp_path_factory.mktemp("plain")
    job, run_id, home = submit(cluster, tmp, LONG)
    assert wait_job(cluster, job, tmp, 300) == 0
    return tmp, home, run_id, final_metrics(home, run_id)


def test_a_two_rank_cpu_run_finishes_and_is_listed(cluster, plain_run):
    tmp, home, run_id, _ = plain_run
    text = job_log(tmp)
    assert "Traceback" not in text and f"run {run_id} (new)" in text, text[-3000:]
    proc = run_cli("runs", "--json", env=dict(os.environ, STUDIO_HOME=str(home)))
    runs = last_json(proc.stdout)["runs"]
    assert [(r["run_id"], r["status"], r["world_size"], r["steps"]) for r in runs] == [(run_id, "finished", 2, 2700)]
    script = (tmp / "job" / "run.sbatch").read_text()
    assert "#SBATCH --cpus-per-task=2" in script  # the 2 CPU ranks get 2 cores (checked on the job below)


def test_sigterm_to_the_batch_script_checkpoints_requeues_and_continues_to_the_same_end(cluster, plain_run,
                                                                                          tmp_path):
    job, run_id, home = submit(cluster, tmp_path, LONG, "--time", "30")
    ckpts = home / "runs" / run_id / "checkpoints"

    def past_step_0() -> bool:
        return ckpts.is_dir() and any(p.name != "step_0000000.pt" for p in ckpts.glob("step_*.pt"))

    wait_job(cluster, job, tmp_path, 120, until=past_step_0)
    assert cluster.job_field(job, "NumCPUs") == "2"
    cluster.run("scancel", "--signal=TERM", "--batch", job)  # what --signal=B:TERM@N does N s before the limit
    wait_job(cluster, job, tmp_path, 120, release=False,
             until=lambda: cluster.job_field(job, "Restarts") == "1" and cluster.job_state(job) == "PENDING")
    run = RunStore(home).get(run_id)
    assert run.status == "stopped" and "SIGTERM" in run.message, (run.status, run.message, job_log(tmp_path))
    stopped_at = run.summary["steps"]
    assert 0 < stopped_at < 2700 and run.last_checkpoint.name == f"step_{stopped_at:07d}.pt"
    first = job_log(tmp_path)
    assert "Killed" not in first and "Traceback" not in first, first[-3000:]

    assert wait_job(cluster, job, tmp_path, 300) == 1
    text = job_log(tmp_path)
    assert f"run {run_id} (continuing from step_{stopped_at:07d}.pt)" in text, text[-3000:]
    assert "Traceback" not in text, text[-3000:]
    run = RunStore(home).get(run_id)
    assert run.status == "finished" and run.summary["steps"] == 2700
    steps = RunStore(home).metrics(run_id)["train/loss"][0]
    assert steps == sorted(set(steps)) and steps[-1] == 2700  # one curve, no step twice
    assert final_metrics(home, run_id) == plain_run[3]  # the same end as the run never interrupted


def test_a_time_limit_shorter_than_the_run_finishes_it_over_several_allocations(cluster, plain_run, tmp_path):
    # --time=1 with SIGTERM 10 s before it: Slurm checks time limits every 30 s, so each allocation trains some
    # 20-50 s. The run is sized to this machine's speed (the plain run's) to train for about 80 s: 2-4 allocations.
    _, plain_home, plain_id, _ = plain_run
    done = RunStore(plain_home).get(plain_id)
    steps_per_s = 2700 / max(1.0, done.updated - done.created)
    epochs = max(600, int(steps_per_s * 80 / 9))
    config = LONG.replace("epochs = 300", f"epochs = {epochs}").replace("checkpoint_every = 5", "checkpoint_every = 50")
    job, run_id, home = submit(cluster, tmp_path, config, "--time", "1", "--signal-seconds", "10")
    started = time.monotonic()
    restarts = wait_job(cluster, job, tmp_path, 480)
    print(f"{9 * epochs} steps in {restarts + 1} allocations, {time.monotonic() - started:.0f} s")  # shown by -s
    text = job_log(tmp_path)
    assert restarts >= 1 and text.count("continuing from step_") == restarts, text[-3000:]
    assert "continuing from step_0000000.pt" not in text and "Traceback" not in text, text[-3000:]
    run = RunStore(home).get(run_id)
    assert run.status == "finished" and run.summary["steps"] == 9 * epochs, (run.status, run.message)
    steps = RunStore(home).metrics(run_id)["train/loss"][0]
    assert steps == sorted(set(steps)) and steps[-1] == 9 * epochs
