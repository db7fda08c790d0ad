"""The warm back end: child processes start from a parent that has already imported torch.

``start_warm()`` (the GUI calls it once the window is up) starts a forkserver with torch, the training
worker, the landscape code and the demos preloaded (``engine/jobs/warm.py``). From then on every job's
processes are forked from a server: a training rank, a demo or a landscape starts in tens of
milliseconds instead of paying the torch import (seconds, far more on a busy machine). A child that
crashes is just a dead child: the server forks the next one as before; if a server itself is gone, the
next job starts a new one (``ForkServer.ensure_running`` checks it is alive).

One server per OpenMP wait policy. libgomp reads ``OMP_WAIT_POLICY`` once, when torch loads it, i.e. in
the server, and a forked child keeps what its server read. A thread plan (``core/host/threads.py``) wants
either the environment's policy (OpenMP's spin-wait unless the person set one) or PASSIVE (a busy
machine, more than one thread), so there are two servers: the environment's, started at once, and a
PASSIVE one (``engine/jobs/warm_passive.py`` sets the policy before torch loads), started when the first has
finished importing so the two imports do not compete for the CPU (on 2 cores: when a job first asks for
it, see EAGER_PASSIVE_CORES). A one-thread plan starts no OpenMP
threads, so its policy is moot and it uses the first server. Why two servers rather than PASSIVE for
all: docs/developer/jobs.md ("The warm back end"). Without ``start_warm()`` (the CLI, where one process
imports torch once anyway) jobs are spawned.

Torch-free: importing this module starts nothing.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from typing import Any

from studio.core.host import threads as thread_policy
from studio.core.host.threads import ThreadPlan, cpu_count
from studio.engine.jobs.forkservers import ServerContext

PRELOAD = ["studio.engine.jobs.warm"]
PASSIVE = "PASSIVE"
PRELOAD_PASSIVE = ["studio.engine.jobs.warm_passive", *PRELOAD]
# With one core kept for the GUI, a 2-core machine gives the Session's jobs one thread each: they never ask
# for PASSIVE there, so the second server (a torch import, ~300 MB) waits until a job does (a CLI queue run).
EAGER_PASSIVE_CORES = 3

_servers: dict[str, ServerContext] = {}  # wait policy → its server (made on first use, started by start_warm)
_state: dict[str, Any] = {"warm": False, "second": None, "ready": False, "probe": None}
_lock = threading.Lock()


def queue_context() -> Any:
    """The context queues and events are made in (they work with spawned and forked-server children)."""
    return multiprocessing.get_context("spawn")


def env_policy() -> str:
    """The wait policy this process's environment gives OpenMP ("" = OpenMP's default spin-wait)."""
    return os.environ.get("OMP_WAIT_POLICY", "").upper()


def _server(policy: str) -> ServerContext | None:
    """The server for ``policy`` (made, not started, on first ask); None for a policy no server can give."""
    with _lock:
        if policy not in _servers:
            if policy == env_policy():
                preload = PRELOAD  # the server inherits this process's environment
            elif policy == PASSIVE:
                preload = PRELOAD_PASSIVE
            else:
                return None
            _servers[policy] = ServerContext(preload)
        return _servers[policy]


def start_warm() -> None:
    """Start the servers (returns at once: the first imports torch in the background, the PASSIVE one
    after it, from a thread; on fewer than EAGER_PASSIVE_CORES cores the PASSIVE one when a job first
    asks for it)."""
    first = _server(env_policy())
    assert first is not None
    first.ensure_running()
    thread_policy.start_sampler()  # a job's thread plan then reads the load without a 0.2 s sample
    with _lock:
        _state["warm"] = True
        probe = _state["probe"]
        if not _state["ready"] and (probe is None or not probe.is_alive()):
            _state["probe"] = threading.Thread(target=_wait_ready, args=(first,), name="studio-warm-probe",
                                               daemon=True)
            _state["probe"].start()
        thread = _state["second"]
        # a policy in the environment is the person's: every plan keeps it, so the first server serves them all
        if env_policy() or (thread is not None and thread.is_alive()) or cpu_count() < EAGER_PASSIVE_CORES:
            return
        _state["second"] = threading.Thread(target=_start_second, args=(first,), name="studio-warm", daemon=True)
        _state["second"].start()


def _wait_ready(first: ServerContext) -> None:
    """Fork one empty child from the first server: it answers once its imports (torch) are done, and from then on
    a job starts at once (:func:`loading` says so to the window, which tells a person what a first Train waits
    for)."""
    try:
        probe = first.Process(target=os.getpid, name="studio-warm-probe", daemon=True)
        probe.start()
        probe.join()
    except Exception:  # noqa: BLE001 - OSError, EOFError, …: the server failed, or was ended while it imported
        return  # the server failed: the next job starts it again, or is spawned
    _state["ready"] = True


def loading() -> bool:
    """Whether the warm back end is still importing torch: a job started now waits for it."""
    return bool(_state["warm"]) and not _state["ready"]


def _start_second(first: ServerContext) -> None:
    try:
        probe = first.Process(target=os.getpid, name="studio-warm-probe", daemon=True)
        probe.start()  # the server answers once its imports are done
        probe.join()
    except Exception:  # noqa: BLE001 - as in _wait_ready
        pass  # the first server failed: the second one is still worth having
    second = _server(PASSIVE)
    if second is not None:
        second.ensure_running()


def stop_warm() -> None:
    """Forget the warm back end (new jobs are spawned); a server exits when its last user is gone."""
    with _lock:
        _state["warm"] = False


def end_warm() -> None:
    """Forget the warm back end and end its servers now (the window is closing: a server still importing torch
    would otherwise go on for seconds after the window is gone)."""
    stop_warm()
    with _lock:
        servers = list(_servers.values())
        _servers.clear()
        _state["ready"] = False
    for server in servers:
        server.stop()


def is_warm() -> bool:
    return bool(_state["warm"])


def server_pid(policy: str | None = None) -> int | None:
    """The process id of the server for ``policy`` (default: the environment's; None when not started)."""
    server = _servers.get(env_policy() if policy is None else policy.upper())
    return None if server is None else server.pid


def context(plan: ThreadPlan | None = None) -> Any:
    """The start method for a job's processes: the warm server whose OpenMP wait policy is the plan's
    (the first server for a one-thread plan, where the policy is moot), else spawn."""
    if not _state["warm"]:
        return multiprocessing.get_context("spawn")
    moot = plan is None or plan.threads == 1
    server = _server(env_policy() if plan is None or moot else plan.wait_policy.upper())
    return server if server is not None else multiprocessing.get_context("spawn")


def child_env(plan: ThreadPlan, ctx: Any) -> dict[str, str]:
    """Environment a child sets before it imports torch (only matters for a spawned child)."""
    return plan.env() if ctx.get_start_method() == "spawn" else {}
