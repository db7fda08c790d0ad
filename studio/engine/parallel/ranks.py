"""The rank processes of one ``studio parallel`` run: started together (``python -m
studio.engine.parallel.rank``), watched together (rank 0's JSON lines on stdout, every rank's exit), and all ended
on any failure: a rank that dies is named in one sentence and the others are killed at once, so no process is
left behind (each rank also leaves by itself when this process is gone: ``rank._watch_parent``)."""

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


def _describe_exit(code: int) -> str:
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with code {code}"


class Ranks:
    """The rank processes of one run: started together, watched together, and all ended on any failure."""

    def __init__(self, world: int, spec: dict[str, Any]) -> None:
        self.world = world
        port = free_port()
        self.errs = [tempfile.TemporaryFile("w+", prefix="studio-parallel-") for _ in range(world)]
        env = dict(os.environ, OMP_NUM_THREADS="1")
        self.procs: list[subprocess.Popen] = []
        self.lines: queue.Queue[str | None] = queue.Queue()
        for r in range(world):
            cmd = [sys.executable, "-m", "studio.engine.parallel.rank", "--rank", str(r), "--world", str(world),
                   "--port", str(port), "--spec", json.dumps(spec)]
            self.procs.append(subprocess.Popen(cmd, stdout=subprocess.PIPE if r == 0 else subprocess.DEVNULL,
                                               stderr=self.errs[r], text=True, env=env))
        threading.Thread(target=self._read, daemon=True, name="rank0-stdout").start()

    def _read(self) -> None:
        out = self.procs[0].stdout
        assert out is not None
        for line in out:
            self.lines.put(line)
        self.lines.put(None)

    def messages(self, where: Callable[[], str]) -> Iterator[dict[str, Any]]:
        """Rank 0's JSON messages as they come; a rank that fails raises ``RunFailed`` naming it (``where``:
        what was running, for the sentence) after every rank is ended."""
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
            elif time.monotonic() - quiet_since > 0.5:  # a heartbeat: the caller's progress sees a cancel promptly
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
                death = f"parallel rank {rank} {_describe_exit(code)} during {where()}; the other ranks were stopped"
                raise RunFailed(child_stderr.with_last_words(death, words))
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
