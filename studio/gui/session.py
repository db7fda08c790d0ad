"""The session: the current RunConfig, the running jobs and the run selection.

Widgets edit the config through it and subscribe to its signals; it talks to the engine (launcher)
and the run store. It holds no training state beyond handles to the jobs it started.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Signal

from studio.core.config import CHOICE_SECTIONS, Choice, RunConfig
from studio.core.errors import StudioError
from studio.core.runs import RunStore
from studio.gui.bridge import Bridge
from studio.gui.store_follow import StoreFollower

SECTION_REGISTRIES = {"data": "DATASETS", "model": "MODELS", "optimizer": "OPTIMIZERS", "schedule": "SCHEDULES"}


def registry_for(section: str) -> Any:
    from studio.core.datasets import DATASETS
    from studio.core.models import MODELS
    from studio.core.optim import OPTIMIZERS, SCHEDULES

    return {"data": DATASETS, "model": MODELS, "optimizer": OPTIMIZERS, "schedule": SCHEDULES}[section]


class Session(QObject):
    config_changed = Signal()
    runs_changed = Signal()
    run_started = Signal(str)
    run_ended = Signal(str, str, str)  # run_id, status, message
    metrics = Signal(str, object)  # run_id, rows of (step, name, value, wall)
    progress = Signal(str, object)  # run_id, {step, total_steps, epoch, epochs}
    selection_changed = Signal(object)
    datasets_changed = Signal()
    status_text = Signal(str)
    error = Signal(str, str)  # title, message
    state_changed = Signal(str)  # "idle", "running", "paused"

    def __init__(self, store: RunStore | None = None, config: RunConfig | None = None) -> None:
        super().__init__()
        self.store = store or RunStore()
        self.config = config or RunConfig()
        self.jobs: dict[str, Any] = {}
        self.state = "idle"
        self._selection: list[str] = []
        self.bridge = Bridge()
        self.bridge.batch.connect(self._on_batch)
        self.bridge.start()
        self._queue: Any = None
        # runs the queue's scheduler starts are not this window's jobs: follow them through the store
        self.follower = StoreFollower(self)

    # --- config edits ----------------------------------------------------------------------
    def set_choice(self, section: str, name: str) -> None:
        """Pick another registry entry for a section; its parameters start at their defaults."""
        if getattr(self.config, section).name == name:
            return
        entry = registry_for(section).get(name)
        setattr(self.config, section, Choice(name, entry.defaults()))
        self.config_changed.emit()

    def set_param(self, section: str, key: str, value: Any) -> None:
        if section in CHOICE_SECTIONS:
            choice = getattr(self.config, section)
            param = registry_for(section).get(choice.name).param(key)
            choice.params[key] = param.coerce(value, f"{section}.{key}")
        else:
            setattr(getattr(self.config, section), key, value)
        self.config_changed.emit()

    def set_config(self, config: RunConfig) -> None:
        self.config = config.copy()
        self.config_changed.emit()

    def notify_datasets_changed(self) -> None:
        self.datasets_changed.emit()

    # --- runs ------------------------------------------------------------------------------
    @property
    def active_job(self) -> Any | None:
        return next(iter(self.jobs.values()), None)

    def train(self) -> str | None:
        """Validate the config and start a run; returns its id (None if refused)."""
        if self.jobs:
            self.status_text.emit("A run is already in progress")
            return None
        from studio.engine.launcher import launch

        try:
            config = RunConfig.from_dict(self.config.to_dict())
            job = launch(config, self.store, spare_cores=1)
        except StudioError as err:
            self.error.emit("Cannot start training", str(err))
            return None
        return self._follow_started(job, config)

    def resume_run(self, run_id: str, overrides: list[str] | None = None) -> str | None:
        """Continue a stopped, interrupted or finished run from its last checkpoint, in the same run (its
        curves continue); ``overrides`` like ``["train.epochs=20"]`` extend it. Returns its id (None if refused)."""
        if self.jobs:
            self.status_text.emit("A run is already in progress")
            return None
        from studio.engine.launcher import launch
        from studio.engine.resume_plan import plan_resume

        try:
            plan = plan_resume(self.store, run_id, overrides)
            job = launch(plan.config, self.store, spare_cores=1, resume=plan)
        except StudioError as err:
            self.error.emit("Cannot resume the run", str(err))
            return None
        self.set_selection([])  # the curves reload from the store: rows past the checkpoint are redone
        return self._follow_started(job, plan.config, f"Resuming run {job.run_id} from {plan.checkpoint.name}…")

    def _follow_started(self, job: Any, config: RunConfig, text: str = "") -> str:
        self.jobs[job.run_id] = job
        self.bridge.follow(job)
        self._set_state("running")
        self.run_started.emit(job.run_id)
        self.runs_changed.emit()
        self.set_selection([job.run_id])
        self.status_text.emit(text or f"Starting run {job.run_id} ({config.hardware.processes}× "
                                      f"{config.hardware.device})…")
        return job.run_id

    def stop(self) -> None:
        for job in self.jobs.values():
            job.stop()
        if self.jobs:
            self.status_text.emit("Stopping: saving a checkpoint…")

    def pause(self) -> None:
        for job in self.jobs.values():
            job.pause()

    def resume(self) -> None:
        for job in self.jobs.values():
            job.resume()

    def shutdown(self, wait_s: float = 12.0) -> None:
        """Stop every run (checkpointing), wait for the ranks to exit, then stop the bridge."""
        import time

        for job in list(self.jobs.values()):
            job.stop()
        deadline = time.monotonic() + wait_s
        while any(not j.finished for j in self.jobs.values()) and time.monotonic() < deadline:
            time.sleep(0.05)
        self.bridge.shutdown()
        for job in self.jobs.values():
            job.kill()
        self.follower.stop()  # queued runs are not stopped: their scheduler is a process of its own

    # --- which run store -------------------------------------------------------------------
    def open_store(self, home: str | None) -> bool:
        """Show the runs of another run store, read-only: a shared folder that other machines or a cluster job
        write (docs/clusters.md); ``None``: back to this user's own store. Returns whether it opened."""
        if self.jobs:
            self.error.emit("Cannot switch run stores", "A run of this window is in progress; stop it first.")
            return False
        try:
            store = RunStore(home, read_only=True) if home else RunStore()
        except StudioError as err:
            self.error.emit("Cannot open the run store", str(err))
            return False
        old, self.store = self.store, store
        if self._queue is not None:
            self._queue.close()
            self._queue = None
        self.set_selection([])
        old.close()
        self.runs_changed.emit()
        self.status_text.emit(f"Watching the run store {store.home} (read-only): its runs and curves follow "
                              "what other machines write" if home else f"Your run store {store.home}")
        return True

    # --- the queue (core/run_queue.py; a detached scheduler starts the runs) ------------------
    @property
    def queue(self) -> Any:
        if self._queue is None:
            from studio.core.run_queue import RunQueue

            self._queue = RunQueue(self.store)
        return self._queue

    def enqueue(self, configs: list[tuple[RunConfig, str]] | None = None) -> list[str]:
        """Queue runs (default: the current config) and make sure a scheduler serves them; returns their ids.
        They keep going after the window closes."""
        from studio.engine.scheduler import ensure_scheduler

        try:
            configs = configs or [(RunConfig.from_dict(self.config.to_dict()), "")]
            ids = [self.queue.add(config, name).id for config, name in configs]
            ensure_scheduler(self.store)
        except (StudioError, OSError) as err:
            self.error.emit("Cannot queue the run", str(err))
            return []
        self.runs_changed.emit()
        where = self.queue.positions().get(ids[-1])
        self.status_text.emit(f"Queued {len(ids)} run{'s' if len(ids) != 1 else ''}"
                              + (f" (last at position {where})" if where else ""))
        return ids

    def cancel_queued(self, run_id: str) -> None:
        try:
            result = self.queue.cancel(run_id)
        except StudioError as err:
            self.error.emit("Cannot cancel", str(err))
            return
        self.status_text.emit(f"Run {run_id}: {'cancelled' if result == 'cancelled' else 'stopping'}")
        self.runs_changed.emit()

    def queue_positions(self) -> dict[str, int]:
        return self.queue.positions()

    # --- selection -------------------------------------------------------------------------
    def set_selection(self, run_ids: list[str]) -> None:
        if run_ids != self._selection:
            self._selection = list(run_ids)
            self.selection_changed.emit(list(run_ids))

    def selected_runs(self) -> list[str]:
        return list(self._selection)

    # --- messages from the bridge ----------------------------------------------------------
    def _set_state(self, state: str) -> None:
        if state != self.state:
            self.state = state
            self.state_changed.emit(state)

    def _on_batch(self, messages: list[dict]) -> None:
        rows: dict[str, list] = {}
        for m in messages:
            kind, run_id = m.get("type"), m.get("run_id", "")
            if kind == "metrics":
                rows.setdefault(run_id, []).extend(m["rows"])
                self.progress.emit(run_id, {k: m[k] for k in ("step", "total_steps", "epoch", "epochs")})
            elif kind == "status":
                if m["status"] == "paused":
                    self._set_state("paused")
                    self.status_text.emit("Paused")
                elif m["status"] == "running":
                    self._set_state("running")
                    self.status_text.emit(f"Training on {m.get('world_size', 1)}× {m.get('device', 'cpu')}"
                                          if "device" in m else "Resumed")
                self.runs_changed.emit()
            elif kind == "log":
                self.status_text.emit(m["text"])
            elif kind == "ended":
                self.jobs.pop(run_id, None)
                if not self.jobs:
                    self._set_state("idle")
                self.run_ended.emit(run_id, m["status"], m.get("message", ""))
                if m["status"] == "failed":
                    self.error.emit("Training failed", m.get("message") or "the run failed")
                self.runs_changed.emit()
        for run_id, r in rows.items():
            self.metrics.emit(run_id, r)
