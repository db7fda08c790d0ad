"""A group of rank processes (``python -m MODULE --rank R --world W --port P --spec JSON``) started together,
watched together (rank 0's JSON lines on stdout, every rank's exit) and all ended on any failure: a rank that dies
is named in one sentence and the others are killed at once, so no process is left behind. The rank side's helpers
are here too: :func:`watch_parent` (a rank leaves by itself when its launcher is gone), :func:`emit` and
:func:`kill_point` (a test hook that makes a rank die where a test says). Torch-free."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from studio.core.errors import RunFailed
from studio.core.host.procs import free_port
from studio.engine.jobs import child_stderr

HEARTBEAT_S = 0.5  # a quiet rank 0 still yields this often, so the caller's progress sees a cancel promptly


def describe_exit(code: int) -> str:
    """"was killed by SIGKILL", "exited with code 1"."""
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with code {code}"


class RankGroup:
    """``world`` rank processes of ``module``; ``noun`` names one in a failure ("all-reduce rank 1 was killed
    by SIGKILL during ring at p = 4; the other ranks were stopped"). ``port``: the rendezvous port (0: a free
    one). Each rank gets one torch thread's worth of OpenMP (``OMP_NUM_THREADS=1``) and ``env`` on top of this
    process's environment."""

    def __init__(self, module: str, world: int, spec: dict[str, Any], noun: str, port: int = 0,
                 env: dict[str, str] | None = None) -> None:
        self.world, self.noun = world, noun
        self.port = port or free_port()
        self.errs = [tempfile.TemporaryFile("w+", prefix="studio-rank-") for _ in range(world)]
        environ = dict(os.environ, OMP_NUM_THREADS="1", **(env or {}))
        self.procs: list[subprocess.Popen] = []
        self.lines: queue.Queue[str | None] = queue.Queue()
        text = json.dumps(spec)
        for r in range(world):
            cmd = [sys.executable, "-m", module, "--rank", str(r), "--world", str(world), "--port", str(self.port),
                   "--spec", text]
            self.procs.append(subprocess.Popen(cmd, stdout=subprocess.PIPE if r == 0 else subprocess.DEVNULL,
                                               stderr=self.errs[r], text=True, env=environ))
        threading.Thread(target=self._read, daemon=True, name="rank0-stdout").start()

    def _read(self) -> None:
        out = self.procs[0].stdout
        assert out is not None
        for line in out:
            self.lines.put(line)
        self.lines.put(None)

    def messages(self, where: Callable[[], str]) -> Iterator[dict[str, Any]]:
        """Rank 0's JSON messages as they come, and ``{"type": "tick"}`` while it is quiet; a rank that fails
        raises ``RunFailed`` naming it (``where``: what was running, for the sentence) after every rank is ended."""
        done = False
        quiet_since = time.monotonic()
        while True:
            try:
                line = self.lines.get(timeout=0.05)
            except queue.Empty:
                line = ""
            if line is None:
                done = True
            elif line:
                quiet_since = time.monotonic()
                with contextlib.suppress(ValueError):
                    yield json.loads(line)
            elif time.monotonic() - quiet_since > HEARTBEAT_S:
                quiet_since = time.monotonic()
                yield {"type": "tick"}
            codes = [p.poll() for p in self.procs]
            failed = [(r, c) for r, c in enumerate(codes) if c not in (None, 0)]
            if failed:
                time.sleep(0.2)  # a peer's death makes the others fail too: name the first cause
                codes = [p.poll() for p in self.procs]
                failed = [(r, c) for r, c in enumerate(codes) if c not in (None, 0)] or failed
                rank, code = min(failed, key=lambda rc: (rc[1] >= 0, rc[0]))  # a signal first, then the lowest
                words = child_stderr.last_lines_of(self.errs[rank]) if child_stderr.speaks_for_its_death(code) else ""
                self.stop()
                death = f"{self.noun} {rank} {describe_exit(code)} during {where()}; the other ranks were stopped"
                raise RunFailed(child_stderr.with_last_words(death, words))  # its last lines when it died of an error
            if done and all(c == 0 for c in codes):
                return

    def stop(self) -> None:
        """End every rank still running (SIGKILL), and reap them all."""
        for p in self.procs:
            if p.poll() is None:
                p.kill()
        for p in self.procs:
            with contextlib.suppress(subprocess.TimeoutExpired):
                p.wait(timeout=10)
            if p.stdout:
                p.stdout.close()
        for e in self.errs:
            e.close()


def cuda_count() -> int:
    """GPUs torch sees, asked in a child process so that the launcher never initialises CUDA."""
    try:
        out = subprocess.run([sys.executable, "-c", "import torch; print(torch.cuda.device_count())"],
                             capture_output=True, text=True, timeout=120)
        return int(out.stdout.strip() or 0)
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return 0


# --- the rank's side -----------------------------------------------------------------------------------------------
def watch_parent(parent: int) -> None:
    """Leave at once (exit 4) when the launcher ``parent`` is gone (this process was re-parented)."""

    def watch() -> None:
        while True:
            if os.getppid() != parent:
                os._exit(4)
            time.sleep(0.5)

    threading.Thread(target=watch, daemon=True, name="parent-watchdog").start()


def emit(obj: dict[str, Any]) -> None:
    """One JSON line on stdout (rank 0's messages to the launcher)."""
    print(json.dumps(obj), flush=True)


def kill_point(variable: str, rank: int) -> str | None:
    """Tests only: ``variable`` set to ``"RANK:WHERE"`` names where rank RANK must die; WHERE for this rank, or
    None."""
    spec = os.environ.get(variable, "")
    head, sep, where = spec.partition(":")
    return where if sep and head == str(rank) else None


def die() -> None:
    """Kill this process with SIGKILL (a rank dying mid-run, for tests)."""
    os.kill(os.getpid(), signal.SIGKILL)
