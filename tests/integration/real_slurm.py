"""A real one-node Slurm on 127.0.0.1 for the tests (tests/integration/test_real_slurm.py): munged with its own
key and socket, slurmctld and slurmd with their own state, spool, pid and log files under a temp folder, no
accounting, ``proctrack/linuxproc``. Started by :func:`start`, stopped by pid with :meth:`Cluster.stop`.
Needs Debian's ``slurm-wlm`` and ``munge`` and root (SlurmUser=root); :func:`available` says why not."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

DAEMONS = ("munged", "mungekey", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol", "scancel", "srun")


def available() -> str:
    """'' when a real Slurm can be started here, else why not."""
    missing = [d for d in DAEMONS if not (shutil.which(d) or Path("/usr/sbin", d).exists())]
    if missing:
        return "no Slurm here (apt-get install slurm-wlm munge): missing " + ", ".join(missing)
    if os.geteuid() != 0:
        return "the test cluster runs as root (SlurmUser=root)"
    return ""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _exe(name: str) -> str:
    return shutil.which(name) or str(Path("/usr/sbin", name))


@dataclass
class Cluster:
    root: Path
    env: dict[str, str]
    procs: list[subprocess.Popen] = field(default_factory=list)

    def run(self, *args: str, check: bool = True, timeout: float = 30) -> subprocess.CompletedProcess:
        """A Slurm client command against this cluster."""
        proc = subprocess.run(list(args), env=self.env, capture_output=True, text=True, timeout=timeout)
        if check and proc.returncode:
            raise RuntimeError(f"{' '.join(args)}: {proc.stderr.strip() or proc.stdout.strip()}")
        return proc

    def job_state(self, job: str) -> str:
        """The job's state (PENDING, RUNNING, COMPLETED, …) from scontrol."""
        out = self.run("scontrol", "-o", "show", "job", job, check=False).stdout
        for word in out.split():
            if word.startswith("JobState="):
                return word.split("=", 1)[1]
        return ""

    def job_field(self, job: str, name: str) -> str:
        out = self.run("scontrol", "-o", "show", "job", job, check=False).stdout
        for word in out.split():
            if word.startswith(name + "="):
                return word.split("=", 1)[1]
        return ""

    def logs(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-4000:]}"
                         for p in sorted(self.root.glob("*.log")))

    def stop(self) -> None:
        """Cancel the cluster's jobs, then stop the daemons it started by pid, and any step daemon
        (slurmstepd) of this cluster that outlives them (found by its SLURM_CONF)."""
        if self.procs and self.procs[-1].poll() is None:
            self.run("scancel", "--full", "--user=root", check=False)
            deadline = time.monotonic() + 40
            while time.monotonic() < deadline and self.run("squeue", "-h", check=False).stdout.strip():
                time.sleep(0.5)
        for proc in reversed(self.procs):
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 20
        for proc in reversed(self.procs):
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self.procs.clear()
        for pid in self._step_daemons():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass

    def _step_daemons(self) -> list[int]:
        mine = f"SLURM_CONF={self.env['SLURM_CONF']}".encode()
        found = []
        for proc in Path("/proc").iterdir():
            try:
                if proc.name.isdigit() and (proc / "comm").read_text().strip() == "slurmstepd" and \
                        mine in (proc / "environ").read_bytes().split(b"\0"):
                    found.append(int(proc.name))
            except OSError:
                continue
        return found


def start(root: Path) -> Cluster:
    """Start munged, slurmctld and slurmd under ``root``; wait until the node is idle."""
    root.mkdir(parents=True, exist_ok=True)
    for sub in ("state", "spool", "munge"):
        (root / sub).mkdir(exist_ok=True)
    (root / "munge").chmod(0o700)
    key, sock = root / "munge" / "munge.key", root / "munge" / "munge.socket"
    subprocess.run([_exe("mungekey"), "--create", f"--keyfile={key}"], check=True, capture_output=True)
    key.chmod(0o400)
    host = socket.gethostname().split(".")[0]
    cpus = os.cpu_count() or 1
    conf = root / "slurm.conf"
    conf.write_text(f"""ClusterName=studio-test
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={_free_port()}
SlurmdPort={_free_port()}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={sock}
StateSaveLocation={root / 'state'}
SlurmdSpoolDir={root / 'spool'}
SlurmctldPidFile={root / 'slurmctld.pid'}
SlurmdPidFile={root / 'slurmd.pid'}
SlurmctldLogFile={root / 'slurmctld.log'}
SlurmdLogFile={root / 'slurmd.log'}
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
MinJobAge=30
JobRequeue=1
KillWait=30
SchedulerType=sched/builtin
SlurmctldTimeout=30
SlurmdTimeout=60
InactiveLimit=0
NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes={host} Default=YES MaxTime=INFINITE State=UP
""")
    env = dict(os.environ, SLURM_CONF=str(conf))
    cluster = Cluster(root, env)
    try:
        cluster.procs.append(subprocess.Popen(
            [_exe("munged"), "--foreground", f"--socket={sock}", f"--key-file={key}", "--force",
             f"--pid-file={root / 'munge' / 'munged.pid'}", f"--log-file={root / 'munged.log'}",
             f"--seed-file={root / 'munge' / 'seed'}"],
            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT))
        _wait(lambda: sock.exists(), 20, "munged's socket", cluster)
        for daemon in ("slurmctld", "slurmd"):
            cluster.procs.append(subprocess.Popen([_exe(daemon), "-D", "-f", str(conf)] +
                                                  (["-i"] if daemon == "slurmctld" else []),
                                                  env=env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT))
            if daemon == "slurmctld":
                _wait(lambda: cluster.run("scontrol", "ping", check=False).returncode == 0, 30, "slurmctld", cluster)
        _wait(lambda: "idle" in cluster.run("sinfo", "-h", "-o", "%t", check=False).stdout, 60, "an idle node",
              cluster)
    except BaseException:
        cluster.stop()
        raise
    return cluster


def _wait(ok, timeout: float, what: str, cluster: Cluster) -> None:  # noqa: ANN001 - a predicate
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(p.poll() is not None for p in cluster.procs):
            raise RuntimeError(f"a Slurm daemon exited while waiting for {what}\n{cluster.logs()}")
        if ok():
            return
        time.sleep(0.3)
    raise RuntimeError(f"no {what} after {timeout:.0f} s\n{cluster.logs()}")
