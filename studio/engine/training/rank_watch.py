"""Watching ranks, from both sides.

In a rank (``RankGuard``): SIGTERM (Slurm, systemd, ``timeout``, ``docker stop``) and the death of the
parent process become a stop request that all ranks agree on at the next step (engine/callbacks/builtin.py
Control), so the run ends with a checkpoint as after Ctrl+C; a parent that is gone also releases the
message queue, so exiting never waits on a pipe nobody reads. ``Beats`` records each rank's progress.

In the launcher (torch-free): ``describe_death`` puts a dead rank in words (signal name, exit code, the
kernel's out-of-memory killer where the cgroup says so), ``first_failure`` picks the failure that
started it all (not the peers that lost their connection), ``find_stall`` names a rank that made no
progress for too long.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from studio.core.host import procs
from studio.engine.jobs.child_stderr import with_last_words

PARENT_POLL_S = 1.0
# Words in a rank's error that mean it only lost a peer (gloo/NCCL), not that it failed itself.
PEER_LOST = ("connection closed by peer", "connection reset by peer", "broken pipe", "gloo", "nccl",
             "socket timeout", "lost contact")


class RankGuard:
    """SIGTERM and the parent's death as a stop request (``reason``), checked by the Control callback."""

    def __init__(self, parent_pid: int | None, on_parent_gone: Any = None) -> None:
        self.reason = ""
        self.parent_gone = False
        self._parent = parent_pid
        self._on_parent_gone = on_parent_gone
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, self._on_sigterm)
        if parent_pid:
            threading.Thread(target=self._watch_parent, name="studio-parent-watch", daemon=True).start()

    def launcher_alive(self) -> bool:
        """Whether the launcher lives. Not ``getppid() == launcher``: under the warm back end the rank's parent
        is the forkserver (engine/jobs/backend.py), and the launcher is only the process that asked for it."""
        if os.getppid() == self._parent:
            return True
        return procs.alive(str(self._parent))

    def _on_sigterm(self, _signum: int, _frame: Any) -> None:
        self.reason = self.reason or "stopped by SIGTERM (a scheduler, `timeout` or `docker stop`)"

    def _watch_parent(self) -> None:
        while True:
            time.sleep(PARENT_POLL_S)
            if not self.launcher_alive():
                self.parent_gone = True
                self.reason = self.reason or (f"stopped: the program that started the run (pid {self._parent}) "
                                              "went away")
                if self._on_parent_gone:
                    self._on_parent_gone()
                return


class Beats:
    """Per-rank (step, wall time) in shared memory: the launcher reads it to notice a stalled rank."""

    def __init__(self, array: Any, rank: int) -> None:
        self.array, self.rank = array, rank

    def beat(self, step: int) -> None:
        if self.array is not None:
            self.array[2 * self.rank] = float(step)
            self.array[2 * self.rank + 1] = time.time()


# --- the launcher's side ------------------------------------------------------------------------
def oom_kills() -> int | None:
    """The kernel's out-of-memory kill count for this cgroup (v2 ``memory.events``, else v1), None if unknown."""
    for path in ("/sys/fs/cgroup/memory.events", "/sys/fs/cgroup/memory/memory.oom_control"):
        try:
            for line in Path(path).read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value)
        except (OSError, ValueError):
            continue
    return None


def describe_death(rank: int, exitcode: int, oom_before: int | None = None) -> str:
    """How a rank that ended without reporting an error ended, in words."""
    if exitcode < 0:
        sig = -exitcode
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = f"signal {sig}"
        after = oom_kills()
        if sig == signal.SIGKILL and oom_before is not None and after is not None and after > oom_before:
            return (f"training process rank {rank} was killed by the kernel's out-of-memory killer; lower "
                    "train.batch_size or use fewer processes")
        hint = " (the kernel's out-of-memory killer also does this; see `dmesg`)" if sig == signal.SIGKILL else ""
        return f"training process rank {rank} was killed by {name} (signal {sig}){hint}"
    return f"training process rank {rank} exited with code {exitcode} without reporting an error"


def is_peer_loss(message: Mapping[str, Any]) -> bool:
    if message.get("peer_lost"):
        return True
    text = f"{message.get('message', '')} {message.get('detail', '')[-2000:]}".lower()
    return any(word in text for word in PEER_LOST)


def first_failure(errors: list[Mapping[str, Any]], exitcodes: list[int | None], oom_before: int | None,
                  last_words: Callable[[int], str] | None = None) -> str:
    """The failure that started it: a rank's own error, else a rank that died silently (a signal; with
    ``last_words(rank)``, the last lines it wrote to stderr), else whatever a rank said (a peer lost), else a
    generic line."""
    own = [e for e in errors if not is_peer_loss(e)]
    if own:
        return own[0]["message"]
    reported = {int(e.get("rank", -1)) for e in errors}
    words = last_words or (lambda _rank: "")
    for rank, code in enumerate(exitcodes):
        if code not in (None, 0) and rank not in reported:
            return with_last_words(describe_death(rank, code, oom_before), words(rank))
    for rank, code in enumerate(exitcodes):
        if code is not None and code < 0:
            return with_last_words(describe_death(rank, code, oom_before), words(rank))
    if errors:
        return errors[0]["message"]
    return "the training processes ended without reporting a result"


def find_stall(beats: Any, world: int, pids: list[int | None], timeout: float, now: float | None = None) -> str:
    """A message naming the stalled rank when no rank has made progress for ``timeout`` s, else ''."""
    if beats is None or timeout <= 0:
        return ""
    now = time.time() if now is None else now
    rows = [(beats[2 * r], beats[2 * r + 1]) for r in range(world)]
    seen = [t for _, t in rows if t > 0]
    if not seen:
        return ""  # not training yet (start-up: loading data, joining the group)
    first = min(seen)
    rows = [(step, t if t > 0 else first) for step, t in rows]
    if now - max(t for _, t in rows) < timeout:
        return ""
    stopped = [r for r, pid in enumerate(pids) if pid and procs.state(pid) in ("T", "t")]
    if stopped:
        rank, how = stopped[0], "it is stopped (SIGSTOP or Ctrl+Z)"
    else:
        rank = min(range(world), key=lambda r: (rows[r][0], rows[r][1]))
        how = "it may be stuck in a data step or a collective"
    step, last = rows[rank]
    return (f"training process rank {rank} made no progress for {now - last:.0f} s after step {int(step)}: {how}; "
            f"the run was failed (raise train.stall_timeout if a step really takes longer)")
