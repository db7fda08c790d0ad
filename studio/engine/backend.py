"""The warm back end: child processes start from a parent that has already imported torch.

``start_warm()`` (the GUI calls it once the window is up) starts the standard library's forkserver
with torch, the training worker, the landscape code and the demos preloaded (``engine/warm.py``). From
then on every job's processes are forked from that server: a training rank, a demo or a landscape
starts in tens of milliseconds instead of paying the torch import (seconds, far more on a busy
machine). A child that crashes is just a dead child: the server forks the next one as before; if the
server itself is gone, the next job starts a new one (``multiprocessing`` checks it is alive).

OpenMP reads its wait policy when torch is imported, i.e. in the server: a job whose thread plan wants
another policy (``core/threads.py``: PASSIVE on a busy machine with more than one thread) is spawned
cold instead, with the policy in its environment. Without ``start_warm()`` (the CLI, where one process
imports torch once anyway) jobs are spawned.

Torch-free: importing this module starts nothing.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.forkserver as forkserver
import os
import threading
from typing import Any

from studio.core.threads import ThreadPlan

PRELOAD = ["studio.engine.warm"]
_state: dict[str, Any] = {"warm": False, "policy": ""}
_lock = threading.Lock()


def queue_context() -> Any:
    """The context queues and events are made in (they work with spawned and forked-server children)."""
    return multiprocessing.get_context("spawn")


def start_warm() -> None:
    """Start the forkserver with torch preloaded (returns at once; the server imports in the background)."""
    with _lock:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(PRELOAD)
        forkserver.ensure_running()
        _state["warm"] = True
        _state["policy"] = os.environ.get("OMP_WAIT_POLICY", "").upper()


def stop_warm() -> None:
    """Forget the warm back end (new jobs are spawned); the server exits when its last user is gone."""
    with _lock:
        _state["warm"] = False


def is_warm() -> bool:
    return bool(_state["warm"])


def server_pid() -> int | None:
    """The forkserver's process id (None when it was never started here)."""
    return getattr(forkserver._forkserver, "_forkserver_pid", None)  # noqa: SLF001 - no public accessor


def context(plan: ThreadPlan | None = None) -> Any:
    """The start method for a job's processes: the warm forkserver when it is up and the plan's OpenMP
    wait policy is the one the server imported torch with (or moot: one thread), else spawn."""
    if _state["warm"] and (plan is None or plan.threads == 1 or plan.wait_policy == _state["policy"]):
        return multiprocessing.get_context("forkserver")
    return multiprocessing.get_context("spawn")


def child_env(plan: ThreadPlan, ctx: Any) -> dict[str, str]:
    """Environment a child sets before it imports torch (only matters for a spawned child)."""
    return plan.env() if ctx.get_start_method() == "spawn" else {}
