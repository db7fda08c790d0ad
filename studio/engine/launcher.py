"""Start a run as N rank processes (spawn start method) and follow it from the parent.

Torch-free: the GUI imports this at start-up. The parent owns two queues: ``messages`` (every rank
→ parent) and ``control`` (parent → rank 0, which shares commands with the other ranks through a
collective). ``Job.poll`` drains messages and watches the processes: a rank that dies takes the
others down and the run is marked failed with the first error a rank reported.
"""

from __future__ import annotations

import multiprocessing
import os
import socket
import time
from pathlib import Path
from typing import Any

from studio.core.config import RunConfig
from studio.core.errors import RunFailed, StudioError
from studio.core.runs import ENDED, RunInfo, RunStore
from studio.engine import protocol, rank_watch
from studio.engine.entry import rank_main
from studio.engine.machine_check import check_machine
from studio.engine.protocol import Message
from studio.engine.queues import drain

STOP_GRACE_S = 8.0  # after Stop, ranks have this long to checkpoint and exit before being killed


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Job:
    """A run in progress: its processes, queues and what they have said so far."""

    def __init__(self, config: RunConfig, store: RunStore, name: str = "", spare_cores: int = 0,
                 run: RunInfo | None = None, resume: Any = None) -> None:
        """``run``: a queued run already in the store (the queue made it); ``resume``: a ResumePlan
        (engine/resume_plan.py): continue that run in place from its checkpoint."""
        self.resume_from: str | None = None
        config.validate()
        check_machine(config)  # before anything is created: a config this machine cannot run never starts
        self.config = config
        self.store = store
        self._before_resume = None
        if resume is not None:
            self._before_resume = (resume.info.status, resume.info.message, resume.info.run_config)
            store.update_config(resume.info.id, config)
            store.set_procs(resume.info.id, [])  # the last session's pids are not this one's
            step = int(resume.checkpoint.stem.rpartition("_")[2] or 0)
            store.truncate_metrics(resume.info.id, step)  # rows past the checkpoint are redone
            store.set_status(resume.info.id, "queued", f"resuming from {resume.checkpoint.name}")
            self.info = store.get(resume.info.id)
            self.resume_from = str(resume.checkpoint)
        else:
            self.info = run or store.create_run(config, name)
        self.run_id = self.info.id
        self.world_size = config.hardware.processes
        self.state = "queued"
        self.summary: dict[str, Any] = {}
        self.errors: list[Message] = []
        self.progress: dict[str, Any] = {"step": 0, "total_steps": 0, "epoch": 0, "epochs": config.train.epochs}
        self.started_at = 0.0
        self._stop_requested_at: float | None = None
        self._ctx = multiprocessing.get_context("spawn")
        self.messages = self._ctx.Queue()
        self.control = self._ctx.Queue()
        self.processes: list[Any] = []
        self.finished = False
        self.state_reached_running = False
        self.failure = ""  # the failed run's message, in words (also in --json's "error")
        self.beats = self._ctx.RawArray("d", 2 * self.world_size)  # per rank (step, time): stall watch
        self._oom_before = rank_watch.oom_kills()
        # CPU threads per rank when the config says 0 (auto): the cores, less those the parent needs
        # (the GUI keeps one: torch's busy-waiting threads slow down badly when a core is taken).
        cores = os.cpu_count() or 1
        self.threads = config.hardware.threads or max(1, (cores - spare_cores) // self.world_size)

    @property
    def run_dir(self) -> Path:
        return self.info.dir

    def start(self) -> Job:
        spec = {
            "run_id": self.run_id, "world_size": self.world_size, "config": self.config.to_dict(),
            "run_dir": str(self.info.dir), "home": str(self.store.home), "queue": self.messages,
            "init_method": f"tcp://127.0.0.1:{free_port()}" if self.world_size > 1 else None,
            "threads": self.threads, "parent_pid": os.getpid(), "beats": self.beats,
            "resume_from": self.resume_from,
        }
        for rank in range(self.world_size):
            rank_spec = dict(spec, control=self.control if rank == 0 else None)
            proc = self._ctx.Process(target=rank_main, args=(rank, rank_spec), name=f"studio-rank{rank}",
                                     daemon=True)
            proc.start()
            self.processes.append(proc)
        self.started_at = time.time()
        self.store.set_procs(self.run_id, [p.pid for p in self.processes], _semaphores(self.messages, self.control))
        return self

    # --- control ---------------------------------------------------------------------------
    def send(self, command: str) -> None:
        if command not in protocol.CONTROLS:
            raise ValueError(command)
        if not self.finished:
            self.control.put(command)

    def stop(self) -> None:
        """Ask every rank to stop at the next agreed step, checkpoint and exit."""
        if self._stop_requested_at is None:
            self._stop_requested_at = time.monotonic()
        self.send("stop")

    def pause(self) -> None:
        self.send("pause")

    def resume(self) -> None:
        self.send("resume")

    # --- following -------------------------------------------------------------------------
    def poll(self, timeout: float = 0.1, max_messages: int = 5000) -> list[Message]:
        """Messages received since the last call (waits up to ``timeout`` for the first one)."""
        if self.finished:
            return []
        out: list[Message] = drain(self.messages, timeout, limit=max_messages)
        for message in out:
            self._observe(message)
        out.extend(self._watch())
        return out

    def _undo_resume(self) -> None:
        status, message, config = self._before_resume
        self.store.update_config(self.run_id, config)
        self.store.set_status(self.run_id, status, message)

    def _observe(self, message: Message) -> None:
        kind = message.get("type")
        if kind == "status":
            self.state = message["status"]
            if self.state == "running":
                self.state_reached_running = True
            if message.get("summary"):
                self.summary = message["summary"]
            if "total_steps" in message:
                self.progress["total_steps"] = message["total_steps"]
        elif kind == "metrics":
            for key in ("step", "total_steps", "epoch", "epochs"):
                self.progress[key] = message[key]
        elif kind == "error":
            self.errors.append(message)

    def _watch(self) -> list[Message]:
        """Notice dead ranks, a stop that takes too long, and the end of the job."""
        codes = [p.exitcode for p in self.processes]
        if all(c is not None for c in codes):
            return self._end()
        failed = [(r, c) for r, c in enumerate(codes) if c not in (None, 0)]
        if failed:
            self._teardown()
            return self._end()
        stall = "" if self.state == "paused" else rank_watch.find_stall(
            self.beats, self.world_size, [p.pid for p in self.processes], self.config.train.stall_timeout)
        if stall:
            self.errors.insert(0, protocol.error(self.run_id, stall, rank=-1))
            self._teardown()
            return self._end()
        if self._stop_requested_at and time.monotonic() - self._stop_requested_at > STOP_GRACE_S:
            self._teardown()
            if self.state not in ENDED:
                self.state = "stopped"
                self.store.set_status(self.run_id, "stopped", "stopped by the user (forced after a timeout)")
            return self._end()
        return []

    def _end(self) -> list[Message]:
        """All ranks are gone: drain what they left and settle the final status."""
        for proc in self.processes:
            proc.join(timeout=5)
        tail: list[Message] = drain(self.messages, 0.05, each_timeout=0.05)
        for message in tail:
            self._observe(message)
        self.finished = True
        if self.errors or self.state not in ENDED:
            self.state = "failed"
            message = rank_watch.first_failure(self.errors, [p.exitcode for p in self.processes], self._oom_before)
            self.failure = message
            try:
                if self._before_resume and self.state_reached_running is False:
                    self._undo_resume()  # a resume that never started leaves the run as it was
                else:
                    self.store.set_status(self.run_id, "failed", message)
            except StudioError:  # the store cannot be written (a full disk): the CLI still says why
                pass
            tail.append(protocol.status(self.run_id, "failed", message=message))
        self._close_queues()
        return tail

    def _teardown(self) -> None:
        for proc in self.processes:
            if proc.is_alive():
                proc.terminate()
        deadline = time.monotonic() + 3
        for proc in self.processes:
            proc.join(timeout=max(0.0, deadline - time.monotonic()))
            if proc.is_alive():
                proc.kill()
                proc.join(timeout=2)

    def _close_queues(self) -> None:
        for q in (self.messages, self.control):
            q.cancel_join_thread()
            q.close()

    def kill(self) -> None:
        """Tear the job down now (closing the app without waiting)."""
        if not self.finished:
            self._teardown()
            self._end()

    @property
    def exit_code(self) -> int:
        """0 finished or stopped, 2 a user-fixable error, 3 a failed run (the CLI's contract)."""
        if self.state in ("finished", "stopped"):
            return 0
        for error in self.errors:
            if error.get("message") == self.failure:
                return int(error.get("exit_code", 3))
        return 3

    def wait(self, timeout: float | None = None) -> str:
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self.finished:
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError(f"run {self.run_id} still {self.state}")
            self.poll(timeout=0.2)
        return self.state


def _semaphores(*queues: Any) -> list[str]:
    """The POSIX semaphore names behind multiprocessing queues (freed by core/runs.py if the launcher is killed)."""
    names = []
    for q in queues:
        for lock in (getattr(q, "_rlock", None), getattr(q, "_wlock", None), getattr(q, "_sem", None)):
            name = getattr(getattr(lock, "_semlock", None), "name", None)
            if name:
                names.append(name)
    return names


def launch(config: RunConfig, store: RunStore | None = None, name: str = "", spare_cores: int = 0,
           run: RunInfo | None = None, resume: Any = None) -> Job:
    """Create the run in the store (or take ``run``, one the queue created; or continue ``resume``, a
    ResumePlan) and start its rank processes."""
    job = Job(config, store or RunStore(), name, spare_cores, run, resume)
    try:
        return job.start()
    except Exception as err:
        job.kill()
        message = f"the training processes could not be started: {err}"
        job.store.set_status(job.run_id, "failed", message)
        raise RunFailed(message) from err
