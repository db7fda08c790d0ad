"""Start a run as N rank processes and follow it from the parent: the training job.

Torch-free: the GUI imports this at start-up. A :class:`Job` is a ``ProcessJob``
(``engine/jobs/process_job.py``): its message queue carries every rank's messages to the parent, its control
queue carries commands to rank 0, which shares them with the other ranks through a collective. A rank
that dies (or stalls: ``engine/training/rank_watch.py``) takes the others down and the run is marked failed with
the failure that started it.
"""

from __future__ import annotations

import os
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from studio.core.config import RunConfig
from studio.core.config.data_fit import check_model_data
from studio.core.contracts import layout, protocol
from studio.core.contracts.progress import ENDED, FAILED, PAUSED, QUEUED, RUNNING, STOPPED, EtaEstimator
from studio.core.contracts.protocol import Received
from studio.core.contracts.runs import RunSummary
from studio.core.errors import ConfigError, RunFailed, StudioError
from studio.core.estimates.footprint import check_fits
from studio.core.host import threads as thread_policy
from studio.core.host.procs import free_port
from studio.core.runs.lineage import check_lineage
from studio.core.runs.run_lock import RunLock
from studio.core.runs.settings_diff import CPU_THREADS_KEY
from studio.core.runs.store import RunInfo, RunStore
from studio.engine.jobs import backend, child_stderr
from studio.engine.jobs.process_job import ProcessJob
from studio.engine.training import rank_watch
from studio.engine.training.entry import rank_main
from studio.engine.training.machine_check import check_machine
from studio.engine.training.rank_spec import RankSpec

RANK_NICE = 5  # the GUI's runs yield the CPU to the window (core/threads.ThreadPlan.nice)
STOP_GRACE_S = 8.0  # after Stop, ranks have this long to checkpoint and exit before being killed


class Job(ProcessJob):
    """A run in progress: its rank processes and what they have said so far."""

    label = "training"
    grace_s = STOP_GRACE_S

    def __init__(self, config: RunConfig, store: RunStore, name: str = "", spare_cores: int = 0,
                 run: RunInfo | None = None, resume: Any = None) -> None:
        """``run``: a queued run already in the store (the queue made it); ``resume``: a ResumePlan
        (engine/training/resume_plan.py): continue that run in place from its checkpoint."""
        self.resume_from: str | None = None
        config.validate()
        check_machine(config)  # before anything is created: a config this machine cannot run never starts
        # a run to start from (BERT, init_from): its shapes, BERT's vocabulary (a resumed run keeps its own)
        check_lineage(config, store, resume.info.dir if resume is not None else None)
        check_model_data(config)  # a model that cannot read the dataset: one sentence, nothing created
        check_fits(config)  # a model bigger than the memory it would have: refused before anything allocates
        self.config = config
        self.store = store
        self._before_resume = None
        self._lock: RunLock | None = None
        if resume is not None:
            self._claim(resume)
            self._before_resume = (resume.info.status, resume.info.message, resume.info.run_config)
            store.update_config(resume.info.id, config)
            store.set_procs(resume.info.id, [])  # the last session's pids are not this one's
            step = int(resume.checkpoint.stem.rpartition("_")[2] or 0)
            store.truncate_metrics(resume.info.id, step)  # rows past the checkpoint are redone
            store.set_status(resume.info.id, QUEUED, f"resuming from {resume.checkpoint.name}")
            self.info = store.get(resume.info.id)
            self.resume_from = str(resume.checkpoint)
        else:
            self.info = run or store.create_run(config, name)
            # until its ranks start, the run's process is this one: killed now, it is listed interrupted, not queued
            store.set_procs(self.info.id, [os.getpid()])
        super().__init__(self.info.id)
        self.world_size = config.hardware.processes
        self.spare_cores = spare_cores
        self.summary: RunSummary = {}
        self.progress: dict[str, Any] = {"step": 0, "total_steps": 0, "epoch": 0, "epochs": config.train.epochs}
        self.state_reached_running = False
        self._eta = EtaEstimator()  # from the first metrics report on: start-up is not training
        self.beats = self.ctx_queues.RawArray("d", 2 * self.world_size)  # per rank (step, time): stall watch
        self._oom_before = rank_watch.oom_kills()

    @property
    def run_dir(self) -> Path:
        return self.info.dir

    def _plan(self) -> thread_policy.ThreadPlan:
        """Threads per rank: the same whoever starts the run (GUI, CLI, queue), because the thread count changes
        a CPU run's numbers (0.853 vs 0.8565 test accuracy, issue 22). A parent that needs CPU itself
        (``spare_cores``: the GUI) gets it by running the ranks at a lower priority, never with fewer threads."""
        plan = thread_policy.plan(self.config.hardware.threads, self.world_size)
        return replace(plan, nice=RANK_NICE) if self.spare_cores else plan

    def _launch(self) -> None:
        assert self.threads is not None
        spec = RankSpec(
            self.run_id, self.world_size, self.config.to_dict(), str(self.info.dir), home=str(self.store.home),
            queue=self.messages, control=self.control, threads=self.threads,
            init_method=f"tcp://127.0.0.1:{free_port()}" if self.world_size > 1 else None,
            env=backend.child_env(self.threads, self.ctx), parent_pid=os.getpid(), beats=self.beats,
            resume_from=self.resume_from)
        for rank in range(self.world_size):
            self.spawn(rank_main, (rank, spec.for_rank(rank)), f"studio-rank{rank}")
        self.store.set_procs(self.run_id, [p.pid for p in self.processes], _semaphores(self.messages, self.control))
        self.store.record_settings(self.run_id, {CPU_THREADS_KEY: self.threads.threads})  # what compare shows

    # --- control -------------------------------------------------------------------------------
    def stop(self) -> None:
        """Ask every rank to stop at the next agreed step, checkpoint and exit."""
        self.cancel()

    def pause(self) -> None:
        self.send(protocol.PAUSE)

    def resume(self) -> None:
        self.send(protocol.RESUME)

    # --- following -----------------------------------------------------------------------------
    def _observe(self, message: Received) -> None:
        super()._observe(message)
        kind = message.get("type")
        if kind == protocol.STATUS:
            if self.state == RUNNING:
                self.state_reached_running = True
            elif self.state == PAUSED:  # the rate restarts on resume: paused time is not training time
                self._eta.reset()
                self.eta_s = None
            if message.get("summary"):
                self.summary = message["summary"]
            if "total_steps" in message:
                self.progress["total_steps"] = message["total_steps"]
        elif kind == protocol.METRICS:
            for key in ("step", "total_steps", "epoch", "epochs"):
                self.progress[key] = message[key]
            self.fraction = message["step"] / max(1, message["total_steps"])
            self.text = f"epoch {message['epoch']}/{message['epochs']}, step {message['step']}"
            self.eta_s = self._eta.update(self.fraction, time.monotonic())

    def _check_health(self) -> str:
        if self.state == PAUSED:
            return ""
        return rank_watch.find_stall(self.beats, self.world_size, [p.pid for p in self.processes],
                                     self.config.train.stall_timeout)

    def _failure_message(self) -> str:
        return rank_watch.first_failure(self.errors, [p.exitcode for p in self.processes], self._oom_before,
                                        self._last_words)

    def _last_words(self, rank: int) -> str:
        """The last lines rank ``rank`` wrote to stderr; for a rank that died before it could open its log (its
        first import failed), what the same import says in a fresh interpreter started as the ranks are."""
        words = child_stderr.last_lines(layout.rank_log_path(self.run_dir, rank))
        if words:
            return words
        return child_stderr.start_check(cwd=os.getcwd(), env=dict(os.environ))

    def _on_end(self, forced: str | None) -> None:
        """Rank 0 records the run as it goes; here the parent records what the ranks could not."""
        try:
            if self.state == FAILED:
                if self._before_resume and not self.state_reached_running:
                    self._undo_resume()  # a resume that never started leaves the run as it was
                else:
                    self.store.set_status(self.run_id, FAILED, self.failure)
            elif self.state == STOPPED and (forced or self.store.get(self.run_id).status not in ENDED):
                self.store.set_status(self.run_id, STOPPED, "stopped by the user (forced after a timeout)")
        except StudioError:  # the store cannot be written (a full disk): the CLI still says why
            pass
        finally:
            if self._lock is not None:
                self._lock.release()

    def _claim(self, resume: Any) -> None:
        """Hold the run's lock while this process trains it: a second resume of the same run refuses."""
        lock = RunLock(resume.info.dir)
        if not lock.acquire():
            raise ConfigError(f"run {resume.info.id} is already being trained by another process; wait for it "
                              "to end (or stop it) before resuming it")
        now = self.store.get(resume.info.id).status
        if now != resume.info.status:  # another resume started and ended since this one was planned
            lock.release()
            raise ConfigError(f"run {resume.info.id} is {now} now (another process resumed it); "
                              "look at it again before resuming it")
        self._lock = lock

    def _undo_resume(self) -> None:
        status, message, config = self._before_resume  # type: ignore[misc]
        self.store.update_config(self.run_id, config)
        self.store.set_status(self.run_id, status, message)

    def _death_note(self) -> str:
        return rank_watch.first_failure([], [p.exitcode for p in self.processes], self._oom_before,
                                        self._last_words)


def _semaphores(*queues: Any) -> list[str]:
    """The POSIX semaphore names behind multiprocessing queues (freed by core/runs/store.py if the launcher dies)."""
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
        job.start()
    except RunFailed as err:
        message = f"the training processes could not be started: {err.__cause__ or err}"
        job.store.set_status(job.run_id, FAILED, message)
        raise RunFailed(message) from err
    return job
