"""The parent of the study: the rpc port checked (by binding it) before anything starts, the parameter server and
its k workers (then the Hogwild process) started as ``python -m`` processes in ONE process group, their JSON lines
read, and every process ended on any failure: a process that dies is named in one sentence (``RunFailed``,
exit 3), the others are asked to stop (SIGTERM), then the whole group is killed (SIGKILL) as the last resort.
Each child also ends itself when this process disappears (``model.exit_with_parent``)."""

from __future__ import annotations

import json
import math
import os
import queue
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, Any

from studio.core.config.data_fit import image_shape
from studio.core.contracts.async_sgd import RPC_MODES, AsyncRequest, request_to_dict, validate
from studio.core.errors import ConfigError, RunFailed
from studio.core.estimates.footprint import check_mlp
from studio.core.host.procs import free_port
from studio.engine.jobs import child_stderr

Report = Callable[[float, str], None]
STOP_GRACE_S = 3.0  # after SIGTERM, before the process group is killed
START_S = 120.0  # processes start (torch import, data, rpc rendezvous) within this, on a busy machine


def port_problem(port: int) -> str:
    """Why ``port`` cannot take the rpc rendezvous ("" when it can): checked by binding it on 127.0.0.1."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a closed socket's TIME_WAIT does not count
        try:
            s.bind(("127.0.0.1", port))
        except OSError as err:
            return (f"port {port} is in use: another program (or a study still running) holds it ({err.strerror}); "
                    "pick another --port, or 0 for a free one")
    return ""


def check(request: AsyncRequest) -> int:
    """Validate ``request`` and pick the rpc port (0 when no rpc mode runs); one sentence before any process."""
    validate(request)
    shape = image_shape(request.dataset)  # known without loading for image datasets; a floor of 1 feature otherwise
    check_mlp(math.prod(shape) if shape else 1, request.widths, 1, request.batch_size, device=request.device,
              what="the study's MLP")
    if request.device == "cuda":
        import torch

        if not torch.cuda.is_available():
            raise ConfigError("device cuda asked for, but this machine has no CUDA GPU; use cpu")
    if not any(m in RPC_MODES for m in request.run_modes()):
        return 0
    if not request.port:
        return free_port()
    problem = port_problem(request.port)
    if problem:
        raise ConfigError(problem)
    return request.port


@dataclass
class Child:
    name: str  # "the parameter server", "worker 2", "the Hogwild process"
    proc: subprocess.Popen
    stderr: IO[str]
    died_at: float | None = None

    def last_line(self) -> str:
        return child_stderr.last_lines_of(self.stderr, 1)

    def death(self) -> tuple[str, str]:
        """How it ended, in words, and its last lines on stderr where they may say why ('' otherwise)."""
        code = self.proc.returncode
        if code is not None and code < 0:
            try:
                how = f"was killed by {signal.Signals(-code).name}"
            except ValueError:
                how = f"was killed by signal {-code}"
        else:
            line = self.last_line()
            if code == 3 and line:  # the Hogwild process names its own dead worker
                return line, ""
            how = f"exited with code {code}"
        words = child_stderr.last_lines_of(self.stderr) if child_stderr.speaks_for_its_death(code) else ""
        return f"{self.name} (pid {self.proc.pid}) {how}", words


@dataclass
class Group:
    """Processes in one process group (the first one leads it)."""

    children: list[Child] = field(default_factory=list)
    pgid: int | None = None

    def start(self, name: str, args: list[str], stdout: bool) -> Child:
        env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1")
        err = tempfile.TemporaryFile("w+", prefix="studio-async-")  # a file: a chatty child never blocks on a pipe
        proc = subprocess.Popen([sys.executable, "-m", *args], stdout=subprocess.PIPE if stdout else subprocess.DEVNULL,
                                stderr=err, text=True, env=env, process_group=self.pgid or 0)
        if self.pgid is None:
            self.pgid = proc.pid
        child = Child(name, proc, err)
        self.children.append(child)
        return child

    def stop(self) -> None:
        """SIGTERM to whoever is left, then SIGKILL to the whole group (grandchildren included)."""
        alive = [c.proc for c in self.children if c.proc.poll() is None]
        for p in alive:
            p.terminate()
        deadline = time.monotonic() + STOP_GRACE_S
        for p in alive:
            try:
                p.wait(timeout=max(0.05, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
        if self.pgid is not None:
            try:
                os.killpg(self.pgid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        for c in self.children:
            if c.proc.poll() is None:
                c.proc.kill()
            c.proc.wait(timeout=10)
            c.stderr.close()


def _read_lines(stream: IO[str], out: queue.Queue) -> None:
    for line in stream:
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        out.put(msg)
    out.put(None)


def run_group(group: Group, report: Report, limit_s: float) -> list[dict[str, Any]]:
    """Follow ``group`` (its first child prints the JSON lines) until the result; the rows. Raises RunFailed naming
    a process that died; the caller stops the group in every case."""
    lead = group.children[0]
    assert lead.proc.stdout is not None
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=_read_lines, args=(lead.proc.stdout, lines), daemon=True).start()
    rows: list[dict[str, Any]] | None = None
    deadline = time.monotonic() + limit_s
    while True:
        try:
            msg = lines.get(timeout=0.1)
        except queue.Empty:
            msg = False
        if msg and msg.get("type") == "progress":
            report(float(msg["phase"] + msg["fraction"]) / msg["phases"], msg["mode"])
        elif msg and msg.get("type") == "result":
            rows = msg["rows"]
        elif msg is False:
            report(-1.0, "")  # no news: the caller may raise Cancelled
        codes = [c.proc.poll() for c in group.children]
        if any(code not in (None, 0) for code in codes):
            time.sleep(0.3)  # the one killed first, not the peers that lost it a moment later
            death, words = _first_death(group)
            raise RunFailed(child_stderr.with_last_words(
                f"{death}; the study stopped and its other processes were ended", words))
        if all(code == 0 for code in codes) and (rows is not None or msg is None):
            break
        if time.monotonic() > deadline:
            raise RunFailed(f"the async SGD study did not finish within {limit_s:.0f} s; its processes were ended")
    if rows is None:
        raise RunFailed(f"{lead.name} ended without a result: {lead.last_line() or 'no message'}")
    return rows


def _first_death(group: Group) -> tuple[str, str]:
    dead = [c for c in group.children if c.proc.poll() not in (None, 0)]
    by_signal = [c for c in dead if (c.proc.returncode or 0) < 0]
    return (by_signal or dead)[0].death()


def study(request: AsyncRequest, progress: Report | None = None) -> dict[str, Any]:
    """Every mode of ``request``: the rpc modes in one parameter-server group, then Hogwild; ``AsyncResult``."""
    port = check(request)
    modes = request.run_modes()
    rpc_modes = [m for m in modes if m in RPC_MODES]
    values = json.dumps({**request_to_dict(request), "port": port})
    budget = request.seconds if not request.updates else request.updates * (0.05 + max(request.delays or (0,)))
    groups: list[tuple[list[str], Callable[[Group], None]]] = []

    def rpc_group(g: Group) -> None:
        world = request.workers + 1
        for rank in range(world):
            g.start("the parameter server" if rank == 0 else f"worker {rank - 1}",
                    ["studio.engine.async_sgd.node", "--rank", str(rank), "--world", str(world), "--port", str(port),
                     "--request", values], stdout=rank == 0)

    def hogwild_group(g: Group) -> None:
        g.start("the Hogwild process", ["studio.engine.async_sgd.hogwild", "--request", values], stdout=True)

    if rpc_modes:
        groups.append((rpc_modes, rpc_group))
    if "hogwild" in modes:
        groups.append((["hogwild"], hogwild_group))
    rows: list[dict[str, Any]] = []
    done = 0
    for names, build in groups:
        share = len(names) / len(modes)
        base = done / len(modes)

        last = [base, "starting the processes"]

        def report(fraction: float, mode: str, base: float = base, share: float = share, last: list = last) -> None:
            if fraction >= 0:  # else no news: the last report again (a cancelled job raises here)
                last[:] = [base + share * fraction, f"training: {mode}"]
            if progress is not None:
                progress(float(last[0]), str(last[1]))

        group = Group()
        try:
            build(group)
            rows += run_group(group, report, START_S + len(names) * (budget * 4 + 30))
        finally:
            group.stop()
        done += len(names)
    order = {m: i for i, m in enumerate(modes)}
    rows.sort(key=lambda r: order[r["mode"]])
    return {"rows": rows, "dataset": request.dataset, "widths": list(request.widths), "workers": request.workers,
            "delays": [request.delay_of(w) for w in range(request.workers)], "batch_size": request.batch_size,
            "lr": request.lr, "updates": request.updates, "seconds": request.seconds, "device": request.device,
            "cores": os.cpu_count() or 1, "port": port, "seed": request.seed}
