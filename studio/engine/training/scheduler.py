"""The queue's scheduler: a process of its own that starts queued runs when their devices are free.

``studio queue run`` runs it in the foreground; ``ensure_scheduler`` starts it detached (its own session,
output to ``STUDIO_HOME/queue.log``) so the runs keep going when the GUI or the terminal closes. It serves
while runs wait or run, then exits after a short idle time. Torch-free at import (the GUI imports this);
it never imports torch (``count_gpus`` asks a short-lived process, and only once a run wants a GPU).

Runs start through ``engine/training/launcher.launch``, like ``studio train``; the scheduler drains their messages
(a rank's queue must be read) and settles the queue row when a run ends. Two schedulers cannot start a run
twice: claims are SQLite transactions (``core/runs/queue.py``); the lease only saves a second one the work.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from studio.core.errors import StudioError
from studio.core.host import procs
from studio.core.runs.queue import Inventory, RunQueue
from studio.core.runs.store import RunStore
from studio.core.vocab import JobState

IDLE_EXIT_S = 3.0  # an idle scheduler lingers this long for a next run before it exits
HOUSEKEEPING_S = 1.0  # heartbeat, orphan check and new claims this often (and at once when a run ends)
CPU_SLOTS_ENV = "STUDIO_QUEUE_CPU_SLOTS"  # CPU runs at once (default 1)


def cpu_slots_setting(cpu_slots: int | None = None) -> int:
    """CPU runs at a time: the argument, else ``STUDIO_QUEUE_CPU_SLOTS``, else 1."""
    return max(0, cpu_slots if cpu_slots is not None else int(os.environ.get(CPU_SLOTS_ENV, "1") or 1))


def count_gpus() -> int:
    """The CUDA GPUs torch sees (``CUDA_VISIBLE_DEVICES`` applies), asked in a short-lived process so the
    scheduler itself never holds torch (hundreds of MB for the life of the queue)."""
    code = "import torch; print(torch.cuda.device_count() if torch.cuda.is_available() else 0)"
    try:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
        return int(out.stdout.strip().splitlines()[-1])
    except (OSError, ValueError, IndexError, subprocess.SubprocessError):
        return 0  # no torch, a broken CUDA set-up: no GPUs to schedule


class Scheduler:
    """Serve a store's queue: claim, launch, follow and settle runs until nothing is left to do."""

    def __init__(self, store: RunStore, inventory: Inventory, idle_exit_s: float = IDLE_EXIT_S,
                 log: Callable[[str], None] | None = None, launch: Callable[..., Any] | None = None,
                 housekeeping_s: float = HOUSEKEEPING_S, gpu_counter: Callable[[], int] | None = None) -> None:
        """``gpu_counter``: called once, when a waiting run first asks for CUDA, to fill ``inventory.gpus``."""
        self.store = store
        self.queue = RunQueue(store)
        self.inventory = inventory
        self.idle_exit_s = idle_exit_s
        self.pid = os.getpid()
        self.me = procs.identity(self.pid)  # pid:start, so a reused pid is not taken for this scheduler
        self.jobs: dict[str, Any] = {}
        self.log = log or (lambda text: print(text, file=sys.stderr, flush=True))
        self._launch = launch
        self.housekeeping_s = housekeeping_s
        self._gpu_counter = gpu_counter
        self._stopping = False
        self._cancelled: set[str] = set()

    def request_stop(self, *_args: Any) -> None:
        """Stop the runs in progress (they checkpoint) and exit; waiting runs stay queued."""
        self._stopping = True

    def serve(self) -> int:
        """Run until the queue is empty (0), or return 0 at once if another scheduler holds the lease."""
        if not self.queue.take_lease(self.pid):
            self.log(f"another scheduler (pid {self.queue.lease_holder()}) is serving the queue")
            return 0
        self.log(f"scheduler {self.pid}: serving {self.store.db_path} with {self._describe()}")
        began = time.monotonic()
        idle_since: float | None = None
        last_look = -self.housekeeping_s
        leased = True
        try:
            while True:
                ended = self._follow()  # every tick: a rank's message queue must not fill up
                if self._stopping:
                    self._stop_all()
                    return 0
                if ended or time.monotonic() - last_look >= self.housekeeping_s:  # the store, about once a second
                    last_look = time.monotonic()
                    leased = self.queue.beat(self.pid)
                    self._recover_orphans()
                    if leased:
                        self._start_what_fits()
                    if self.jobs or (leased and self.queue.pending()):
                        idle_since = None
                    else:
                        idle_since = idle_since or time.monotonic()
                        if time.monotonic() - idle_since >= self.idle_exit_s and self._leave():
                            return 0
                time.sleep(min(0.1, self.housekeeping_s))
        finally:
            for job in self.jobs.values():
                job.kill()
                self.queue.finish(job.run_id, "the queue's scheduler ended while the run was in progress")
            self.queue.release_lease(self.pid)
            self.queue.close()
            self.log(f"scheduler {self.pid}: done after {time.monotonic() - began:.1f} s "
                     f"({time.process_time():.2f} s of CPU of its own)")

    def _leave(self) -> bool:
        """Give up the lease, then look once more: a run added while the lease still looked held (so nobody
        started a new scheduler for it) is served by this one after all."""
        self.queue.release_lease(self.pid)
        if self.queue.pending() and self.queue.take_lease(self.pid):
            return False
        return True

    def _describe(self) -> str:
        gpus = f"GPUs {list(self.inventory.gpus)}" if self.inventory.gpus else "no GPU"
        return f"{gpus}, {self.inventory.cpu_slots} CPU run(s) at a time"

    def _start_what_fits(self) -> None:
        if self._gpu_counter is not None and self.queue.wants_gpu():
            self.inventory = replace(self.inventory, gpus=tuple(range(self._gpu_counter())))
            self._gpu_counter = None
            self.log(f"scheduler {self.pid}: {self._describe()}")
        while (claim := self.queue.claim_next(self.me, self.inventory)) is not None:
            launch = self._launch
            if launch is None:
                from studio.engine.training.launcher import launch as launch_fn

                launch = launch_fn
            try:
                job = launch(claim.config, self.store, run=claim.info)
            except StudioError as err:
                self.queue.finish(claim.info.id, str(err))
                self.log(f"{claim.info.id}: could not start: {err}")
                continue
            self.jobs[job.run_id] = job
            self.log(f"{job.run_id}: started on {', '.join(claim.devices)} ({claim.info.name})")

    def _follow(self) -> bool:
        """Drain the jobs' messages, pass on cancel requests, settle the runs that ended (True if any did)."""
        if not self.jobs:
            return False
        cancels = {run_id for run_id, owner, cancel in self.queue.running() if owner == self.me and cancel}
        ended = False
        for run_id, job in list(self.jobs.items()):
            if run_id in cancels and run_id not in self._cancelled:
                self._cancelled.add(run_id)
                job.stop()
            job.poll(timeout=0)
            if job.finished:
                del self.jobs[run_id]
                self.queue.finish(run_id)
                self.log(f"{run_id}: {job.state}")
                ended = True
        return ended

    def _recover_orphans(self) -> None:
        """Free the devices of runs whose scheduler died (killed, machine rebooted). A run that had started is
        settled by the store (reading it: interrupted and resumable once none of its processes is left, its
        semaphores freed; still running, its ranks stop themselves when they see their launcher gone); one that
        never started is failed with the reason."""
        for run_id, owner, _ in self.queue.running():
            if owner != self.me and not procs.alive(str(owner)):
                try:
                    status = self.store.get(run_id).status
                except StudioError:  # deleted meanwhile
                    status = ""
                never_started = status == JobState.QUEUED
                self.queue.finish(run_id, "the queue's scheduler stopped before the run could start"
                                  if never_started else None)
                self.log(f"{run_id}: its scheduler ({owner}) is gone; devices freed ({status or 'deleted'})")

    def _stop_all(self, wait_s: float = 15.0) -> None:
        for job in self.jobs.values():
            job.stop()
        deadline = time.monotonic() + wait_s
        while self.jobs and time.monotonic() < deadline:
            self._follow()
            time.sleep(0.05)


def serve(home: str | Path | None = None, cpu_slots: int | None = None, idle_exit_s: float = IDLE_EXIT_S,
          warm: bool = True) -> int:
    """Serve the queue of the store at ``home`` in this process (``studio queue run``). ``warm``: start the
    warm back end (``engine/jobs/backend.py``), so each queued run skips the torch import."""
    store = RunStore(home)
    if warm:
        from studio.engine.jobs import backend

        backend.start_warm()  # runs fork from a server that imported torch once, not each run anew
    scheduler = Scheduler(store, Inventory(cpu_slots=cpu_slots_setting(cpu_slots)), idle_exit_s,
                          gpu_counter=count_gpus)
    old = {s: signal.signal(s, scheduler.request_stop) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        return scheduler.serve()
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)
        store.close()


def ensure_scheduler(store: RunStore) -> int | None:
    """Start a detached scheduler for ``store`` unless one is serving; returns the new process's pid."""
    queue = RunQueue(store)
    try:
        if queue.lease_holder() is not None or not queue.pending():
            return None
    finally:
        queue.close()
    env = dict(os.environ, STUDIO_HOME=str(store.home))
    kwargs: dict[str, Any] = {}
    if sys.platform == "win32":
        kwargs["creationflags"] = subprocess.DETACHED_PROCESS | subprocess.CREATE_NEW_PROCESS_GROUP
    else:
        kwargs["start_new_session"] = True  # the terminal's Ctrl+C and the GUI's exit do not reach it
    with open(store.home / "queue.log", "ab") as log:
        proc = subprocess.Popen([sys.executable, "-m", "studio", "queue", "run"], env=env, stdin=subprocess.DEVNULL,
                                stdout=log, stderr=subprocess.STDOUT, close_fds=True, **kwargs)
    return proc.pid
