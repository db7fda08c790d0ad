"""A ready-to-submit Slurm batch script that runs a Studio config with ``torchrun`` on N nodes.

One torchrun agent per node (``srun``, one task a node); the rendezvous comes from Slurm's environment
(the first node of ``$SLURM_JOB_NODELIST``, the job id as the rendezvous id), so nothing in the script names
a machine. The run's id is fixed when the script is written: a job that Slurm requeues (or that you submit
again) continues the same run from its last checkpoint (engine/training/torchrun.py). ``--signal=B:TERM@S`` sends
SIGTERM to the script S seconds before the time limit; it passes it on to the job step through Slurm
(``scancel --signal=TERM JOB.0``: every node's torchrun agent and ranks; a SIGTERM to ``srun`` itself would make
it kill its tasks at once), the ranks stop together with a checkpoint, then it requeues the job. The agent is
torchrun behind engine/training/agent.py, which ends quietly on that signal. docs/user-guide/clusters.md explains it.
"""

from __future__ import annotations

import shlex
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from studio.core.errors import ConfigError

if TYPE_CHECKING:
    from studio.core.config import RunConfig

RDZV_PORT = 29500


@dataclass
class ClusterSpec:
    nodes: int = 1
    gpus_per_node: int = 0  # 0: CPU ranks
    procs_per_node: int = 1  # CPU ranks a node when gpus_per_node is 0
    time_limit: str = "04:00:00"
    partition: str = ""
    signal_seconds: int = 120  # SIGTERM this long before the time limit: time to write a checkpoint
    max_restarts: int = 3  # torchrun restarts the ranks this often after one fails
    cpus_per_node: int = 0  # 0: let Slurm decide

    @property
    def ranks_per_node(self) -> int:
        return self.gpus_per_node or self.procs_per_node

    def check(self) -> None:
        if self.nodes < 1:
            raise ConfigError(f"--nodes must be at least 1, not {self.nodes}")
        if self.gpus_per_node < 0 or self.procs_per_node < 1:
            raise ConfigError("--gpus-per-node must be 0 or more and --procs-per-node at least 1")
        parts = self.time_limit.replace("-", ":").split(":")
        if not all(p.isdigit() for p in parts) or not 1 <= len(parts) <= 4:
            raise ConfigError(f"--time {self.time_limit!r}: use Slurm's form, e.g. 04:00:00 or 1-00:00:00")
        if self.signal_seconds < 10:
            raise ConfigError("--signal-seconds must leave the ranks at least 10 s to write a checkpoint")


def run_id_for(name: str) -> str:
    """An id for a run that will be written on the cluster: readable, unique and fixed in the script."""
    import secrets

    stem = "".join(c if c.isalnum() or c in "-_" else "-" for c in name)[:24].strip("-") or "run"
    return f"{stem}-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}"


def batch_script(spec: ClusterSpec, config_path: Path, run_id: str, studio_home: str, job_name: str = "",
                 run_name: str = "") -> str:
    """The text of the ``sbatch`` script (bash); ``run_name``: the name the run gets in the store."""
    spec.check()
    q = shlex.quote
    sbatch = [
        f"--job-name={job_name or 'studio-' + run_id}",
        f"--nodes={spec.nodes}",
        "--ntasks-per-node=1",
        f"--time={spec.time_limit}",
        f"--signal=B:TERM@{spec.signal_seconds}",
        "--requeue",
        "--open-mode=append",
        "--output=%x-%j.out",
    ]
    if spec.gpus_per_node:
        sbatch.insert(3, f"--gpus-per-node={spec.gpus_per_node}")
    cpus = spec.cpus_per_node or (0 if spec.gpus_per_node else spec.procs_per_node)
    if cpus:  # one task a node: its CPUs are the node's (a CPU rank needs a core of its own)
        sbatch.insert(3, f"--cpus-per-task={cpus}")
    if spec.partition:
        sbatch.insert(1, f"--partition={spec.partition}")
    name_arg = f" --name {q(run_name)}" if run_name else ""
    header = "\n".join(f"#SBATCH {line}" for line in sbatch)
    backend = f"{spec.gpus_per_node} GPU(s) a node, NCCL" if spec.gpus_per_node else \
        f"{spec.procs_per_node} CPU process(es) a node, gloo"
    return f"""#!/bin/bash
# Studio run {run_id} on {spec.nodes} node(s) × {backend}.
# Written by `studio export-config`; submit with: sbatch {q(str(config_path.parent / 'run.sbatch'))}
# Requeued or submitted again, it continues run {run_id} from its last checkpoint.
# One task a node: a torchrun agent, which starts the node's ranks. {spec.signal_seconds} s before the time limit
# Slurm sends SIGTERM to this script (--signal=B:TERM@…): every rank stops with a checkpoint, the job is requeued.
{header}

# Activate the Python environment that has Studio here (module load …, source venv/bin/activate, conda activate …).
export STUDIO_HOME={q(studio_home)}  # the run store: on a filesystem every node shares
export PYTHONSAFEPATH=1  # `python -m` does not put the submit folder on sys.path (a studio/ clone there shadows Studio)
RUN_ID={q(run_id)}
CONFIG={q(str(config_path))}
PYTHON=${{STUDIO_PYTHON:-python}}
# Optional: STUDIO_RDZV_PORT (default {RDZV_PORT}) if that port is taken; STUDIO_TORCHRUN_ARGS: more torchrun options.

head_node=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n 1)
echo "studio: run $RUN_ID, job $SLURM_JOB_ID (restart ${{SLURM_RESTART_COUNT:-0}}), rendezvous on $head_node"

requeue() {{
    echo "studio: the time limit is near: stopping with a checkpoint, then requeueing job $SLURM_JOB_ID"
    # SIGTERM to the step's processes on every node, through Slurm (a SIGTERM to srun would kill them at once)
    scancel --signal=TERM "$SLURM_JOB_ID.0"  # step 0: the srun below
    wait "$srun_pid"
    scontrol requeue "$SLURM_JOB_ID"
}}
trap requeue TERM

srun --kill-on-bad-exit=1 ${{SLURM_CPUS_PER_TASK:+--cpus-per-task=$SLURM_CPUS_PER_TASK}} \\
    "$PYTHON" -m studio.engine.training.agent \\
    --nnodes="$SLURM_JOB_NUM_NODES" --nproc-per-node={spec.ranks_per_node} \\
    --rdzv-backend=c10d --rdzv-endpoint="$head_node:${{STUDIO_RDZV_PORT:-{RDZV_PORT}}}" \\
    --rdzv-id="$SLURM_JOB_ID" --max-restarts={spec.max_restarts} $STUDIO_TORCHRUN_ARGS \\
    -m studio.engine.worker --config "$CONFIG" --run-id "$RUN_ID"{name_arg} &
srun_pid=$!
wait "$srun_pid"
"""


def cluster_config(cfg: RunConfig, spec: ClusterSpec) -> RunConfig:
    """``cfg`` as the cluster runs it: CUDA when the nodes have GPUs (each node's ranks take its GPUs
    0..G-1 by LOCAL_RANK), else the CPU, with one process per rank of the whole job."""
    out = cfg.copy()
    out.hardware.device = "cuda" if spec.gpus_per_node else "cpu"
    out.hardware.gpus = []
    out.hardware.processes = spec.nodes * spec.ranks_per_node
    return out


def write_cluster_job(cfg: RunConfig, spec: ClusterSpec, out: Path, run_id: str, studio_home: str,
                      torchrun: bool = True, job_name: str = "", run_name: str = "") -> tuple[Path, Path | None]:
    """Write ``config.toml`` (``cfg`` as the cluster runs it) and, with ``torchrun``, the executable ``run.sbatch``
    into ``out``: the paths written (``studio export-config`` and the GUI's Run on a cluster… dialog)."""
    spec.check()
    cfg = cluster_config(cfg, spec)
    try:
        out.mkdir(parents=True, exist_ok=True)
        config_path = out / "config.toml"
        config_path.write_text(cfg.to_toml(), encoding="utf-8")
        script_path = None
        if torchrun:
            script_path = out / "run.sbatch"
            script_path.write_text(batch_script(spec, config_path, run_id, studio_home, job_name, run_name),
                                   encoding="utf-8")
            script_path.chmod(0o755)
    except OSError as err:
        raise ConfigError(f"cannot write to {out}: {err.strerror}") from None
    return config_path, script_path
