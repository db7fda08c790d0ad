"""The session: the current RunConfig, every background job, and the run selection.

Widgets edit the config through it and subscribe to its signals. Every background job (training,
landscape, import, preview, demo, model summary: ``engine/jobs/process_job.py``) starts through
:meth:`Session.start_job`, which hands it to the bridge and returns a :class:`JobHandle` whose signals
arrive on the GUI thread. No tab starts an engine job itself; the session follows them all in one place.
It holds no training state beyond handles to the jobs it started.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Signal

from studio.core.config import CHOICE_SECTIONS, Choice, RunConfig
from studio.core.contracts import protocol, tasks
from studio.core.contracts.activations import ActivationsRequest
from studio.core.contracts.checks import CheckRequest
from studio.core.contracts.compression import CompressRequest, SweepRequest
from studio.core.contracts.evaluation import EvaluationRequest, PredictRequest
from studio.core.contracts.export import ModelExportRequest, TensorBoardExportRequest
from studio.core.contracts.generate import GenerateRequest
from studio.core.contracts.progress import FAILED, PAUSED, RUNNING, format_eta
from studio.core.contracts.scaling import FitRequest, ScaleRequest
from studio.core.contracts.tasks import Task
from studio.core.errors import StudioError
from studio.core.runs.store import RunStore
from studio.core.vocab import JobKind
from studio.engine.jobs.process_job import task_job
from studio.gui.session.bridge import Bridge
from studio.gui.session.store_follow import StoreFollower

SECTION_REGISTRIES = {"data": "DATASETS", "model": "MODELS", "optimizer": "OPTIMIZERS", "schedule": "SCHEDULES"}


def registry_for(section: str) -> Any:
    from studio.core.datasets import DATASETS
    from studio.core.models import MODELS
    from studio.core.optim import OPTIMIZERS, SCHEDULES

    return {"data": DATASETS, "model": MODELS, "optimizer": OPTIMIZERS, "schedule": SCHEDULES}[section]


class JobHandle(QObject):
    """The GUI's side of one background job: its signals arrive on the GUI thread."""

    progress = Signal(float, str, object)  # fraction 0..1, text, seconds left (None: not known yet)
    frame = Signal(object)  # a live snapshot (demos)
    ended = Signal(str, str)  # state (finished, failed, stopped), message in words

    def __init__(self, job: Any, kind: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.job = job
        self.kind = kind
        self.id: str = job.id
        self.done = False  # True once ``ended`` was delivered (the job itself finishes a moment earlier)

    @property
    def state(self) -> str:
        return self.job.state

    @property
    def finished(self) -> bool:
        return self.job.finished

    @property
    def result(self) -> Any:
        return self.job.result

    @property
    def fraction(self) -> float:
        return self.job.fraction

    @property
    def error(self) -> str | None:
        return self.job.error

    @property
    def errors(self) -> list[dict]:
        return self.job.errors

    def progress_text(self) -> str:
        """'text — about 12 s left'."""
        eta = format_eta(self.job.eta_s)
        return f"{self.job.text} — {eta}" if eta and self.job.text else self.job.text or eta

    def cancel(self) -> None:
        self.job.cancel()

    def send(self, command: str) -> None:
        """A control command (``protocol.CONTROLS``: pause, resume, step, …) to the running job."""
        self.job.send(command)

    def set_params(self, values: dict[str, Any]) -> None:
        """New parameter values for a running live demo (``Session.start_demo(..., live=True)``)."""
        self.job.set_params(values)


class Session(QObject):
    config_changed = Signal()
    runs_changed = Signal()
    run_started = Signal(str)
    run_ended = Signal(str, str, str)  # run_id, status, message
    metrics = Signal(str, object)  # run_id, rows of (step, name, value, wall)
    progress = Signal(str, object)  # run_id, {step, total_steps, epoch, epochs, eta_s (the job's; None: unknown)}
    selection_changed = Signal(object)
    datasets_changed = Signal()
    status_text = Signal(str)
    notice = Signal(str, str)  # a status text with details behind a Details… button (e.g. the skipped files)
    error = Signal(str, str)  # title, message
    state_changed = Signal(str)  # "idle", "running", "paused"
    job_started = Signal(object)  # a JobHandle
    job_ended = Signal(object)  # a JobHandle, once its job has ended

    def __init__(self, store: RunStore | None = None, config: RunConfig | None = None) -> None:
        super().__init__()
        self.store = store or RunStore()
        self.config = config or RunConfig()
        self.jobs: dict[str, Any] = {}  # the training runs in progress, by run id
        self.handles: dict[str, JobHandle] = {}  # every job in progress (training included), by job id
        self.state = "idle"
        self._selection: list[str] = []
        self.bridge = Bridge()
        self.bridge.batch.connect(self._on_batch)
        self.bridge.start()
        self._queue: Any = None
        self._announced: Any = None  # the store Recovery already shown (announce_store)
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

    # --- jobs ------------------------------------------------------------------------------
    def start_job(self, job: Any, kind: str) -> JobHandle:
        """Follow ``job`` (a ProcessJob, not started yet): the bridge starts it off the GUI thread."""
        handle = JobHandle(job, kind, self)
        self.handles[job.id] = handle
        self.bridge.follow(job)
        self.job_started.emit(handle)
        return handle

    def running(self, kind: str | None = None) -> list[JobHandle]:
        """The jobs in progress (of one kind: "training", "landscape", "import", "preview", "demo", "summary")."""
        return [h for h in self.handles.values() if kind is None or h.kind == kind]

    def start_landscape(self, task: str, run_dir: str, options: dict[str, Any]) -> JobHandle:
        from studio.engine.tasks.landscape_job import LandscapeJob

        return self.start_job(LandscapeJob(task, run_dir, options), JobKind.LANDSCAPE)

    def start_import(self, path: str, options: dict[str, Any] | None = None) -> JobHandle:
        from studio.engine.tasks.data_import import import_job

        return self.start_job(import_job(path, options), JobKind.IMPORT)

    def start_fetch(self, name: str) -> JobHandle:
        from studio.engine.tasks.data_import import fetch_job

        return self.start_job(fetch_job(name), JobKind.IMPORT)

    def start_preview(self, name: str, params: dict[str, Any], count: int, seed: int) -> JobHandle:
        from studio.engine.tasks.data_import import preview_job

        return self.start_job(preview_job(name, params, count, seed), JobKind.PREVIEW)

    def start_demo(self, name: str, params: dict[str, Any], live: bool = False) -> JobHandle:
        """Run a teaching demo; ``live``: it runs until stopped and takes the handle's ``set_params``/``send``."""
        from studio.engine.tasks.demo import demo_job

        return self.start_job(demo_job(name, params, live=live), JobKind.DEMO)

    def start_check(self, request: CheckRequest) -> JobHandle:
        """Run paper checks (``core/checks``) in the background; the result is a list of outcome dicts."""
        return self.start_task(tasks.PAPER_CHECK, request)

    def start_summary(self, config: RunConfig) -> JobHandle:
        from studio.engine.tasks.summary import summary_job

        return self.start_job(summary_job(config.to_dict()), JobKind.SUMMARY)

    def start_task(self, task: Task, request: Any) -> JobHandle:
        """Run ``task`` (one of the catalog ``engine/tasks``) on ``request`` (its contract's dataclass)."""
        return self.start_job(task_job(task, request), task.kind)

    def start_evaluation(self, request: EvaluationRequest) -> JobHandle:
        """Evaluate a finished run; the result is an ``EvaluationResult``."""
        return self.start_task(tasks.EVALUATE, request)

    def start_predict(self, request: PredictRequest) -> JobHandle:
        """Classify inputs with a finished run (an "evaluation" job); the result is a ``PredictResult``."""
        return self.start_task(tasks.PREDICT, request)

    def start_activations(self, request: ActivationsRequest) -> JobHandle:
        """Every layer's output for one input of a finished run (an "evaluation" job); an ``ActivationsResult``."""
        return self.start_task(tasks.ACTIVATIONS, request)

    def start_export(self, request: TensorBoardExportRequest | ModelExportRequest) -> JobHandle:
        """Write a run's TensorBoard event files or its model (an "evaluation" job)."""
        task = tasks.EXPORT_MODEL if isinstance(request, ModelExportRequest) else tasks.EXPORT_TENSORBOARD
        return self.start_task(task, request)

    def start_compression(self, request: CompressRequest | SweepRequest) -> JobHandle:
        """Compress a run's model, or sweep its sparsity (a "compress" job)."""
        return self.start_task(tasks.SWEEP if isinstance(request, SweepRequest) else tasks.COMPRESS, request)

    def start_fit(self, request: FitRequest) -> JobHandle:
        """A scaling-law fit over finished runs (a "fit" job)."""
        return self.start_task(tasks.FIT, request)

    def start_scaling(self, request: ScaleRequest) -> JobHandle:
        """The data-parallel measurement of a config (a "scale" job)."""
        return self.start_task(tasks.SCALE, request)

    def start_generate(self, request: GenerateRequest) -> JobHandle:
        """Text from a next-word run (a "generate" job); the result is a ``GenerateResult``."""
        return self.start_task(tasks.GENERATE, request)

    # --- runs ------------------------------------------------------------------------------
    @property
    def active_job(self) -> Any | None:
        return next(iter(self.jobs.values()), None)

    def why_read_only(self) -> str:
        """Why nothing can be trained, resumed or queued here ("" when it can): the store is only watched."""
        if not self.store.read_only:
            return ""
        return (f"The run store {self.store.home} is open read-only, to watch it: runs cannot be trained, resumed or "
                "queued into it. File > Back to my run store trains again.")

    def _refuse_if_watching(self, title: str) -> bool:
        why = self.why_read_only()
        if why:
            self.error.emit(title, why)
        return bool(why)

    def train(self) -> str | None:
        """Validate the config and start a run; returns its id (None if refused)."""
        if self.jobs:
            self.status_text.emit("A run is already in progress")
            return None
        if self._refuse_if_watching("Cannot start training"):
            return None
        from studio.engine.training.launcher import Job

        try:
            config = RunConfig.from_dict(self.config.to_dict())
            job = Job(config, self.store, spare_cores=1)  # lower priority, same threads; the bridge starts it
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
        if self._refuse_if_watching("Cannot resume the run"):
            return None
        from studio.engine.training.launcher import Job
        from studio.engine.training.resume_plan import plan_resume

        try:
            plan = plan_resume(self.store, run_id, overrides)
            job = Job(plan.config, self.store, spare_cores=1, resume=plan)  # the bridge starts it
        except StudioError as err:
            self.error.emit("Cannot resume the run", str(err))
            return None
        self.set_selection([])  # the curves reload from the store: rows past the checkpoint are redone
        return self._follow_started(job, plan.config, f"Resuming run {job.run_id} from {plan.checkpoint.name}…")

    def _follow_started(self, job: Any, config: RunConfig, text: str = "") -> str:
        self.jobs[job.run_id] = job
        self.start_job(job, JobKind.TRAINING)
        self._set_state(RUNNING)
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
        """Stop every job (runs checkpoint), wait for them to exit, then stop the bridge."""
        import time

        jobs = [h.job for h in self.handles.values()]
        for job in jobs:
            job.cancel()
        deadline = time.monotonic() + wait_s
        while any(not j.finished for j in jobs if j.started) and time.monotonic() < deadline:
            time.sleep(0.05)
        self.bridge.shutdown()
        for job in jobs:
            job.kill()
        self.follower.stop()  # queued runs are not stopped: their scheduler is a process of its own

    # --- which run store -------------------------------------------------------------------
    def announce_store(self) -> None:
        """Say in the status bar (``notice``) that the store's database was found damaged and rebuilt when it
        opened (core/runs/db.Recovery): where the old file is kept, how many runs and values came back. Once."""
        recovery = self.store.recovery
        if recovery is not None and recovery is not self._announced:
            self._announced = recovery
            self.notice.emit(recovery.message(), recovery.message())  # the whole line behind Details…, unelided

    def open_store(self, home: str | None) -> bool:
        """Show the runs of another run store, read-only: a shared folder that other machines or a cluster job
        write (docs/user-guide/clusters.md); ``None``: back to this user's own store. Returns whether it opened."""
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
        if store.recovery is not None:
            self.announce_store()
            return True
        self.status_text.emit(f"Watching {store.home} read-only (Train is off; File > Back to my run store): its "
                              "runs and curves follow what other machines write" if home
                              else f"Your run store {store.home}")
        return True

    # --- the queue (core/runs/queue.py; a detached scheduler starts the runs) ------------------
    @property
    def queue(self) -> Any:
        if self._queue is None:
            from studio.core.runs.queue import RunQueue

            self._queue = RunQueue(self.store)
        return self._queue

    def enqueue(self, configs: list[tuple[RunConfig, str]] | None = None) -> list[str]:
        """Queue runs (default: the current config) and make sure a scheduler serves them; returns their ids.
        They keep going after the window closes."""
        from studio.engine.training.scheduler import ensure_scheduler

        if self._refuse_if_watching("Cannot queue the run"):
            return []
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

    def move_queued(self, run_id: str, position: int) -> int | None:
        """Move a waiting run to ``position`` in the queue (1: next); the position it got, None if it could not."""
        try:
            got = self.queue.move(run_id, position)
        except StudioError as err:
            self.error.emit("Cannot move the run", str(err))
            return None
        self.runs_changed.emit()
        return got

    def queue_positions(self) -> dict[str, int]:
        return self.queue.positions()

    # --- reading the run store (the window reads through these, never SQLite itself) -------------
    def run_summary(self, run_id: str) -> dict[str, Any]:
        """The run's summary (test_acc, …); {} for a run the store does not know."""
        try:
            return dict(self.store.get(run_id).summary)
        except StudioError:
            return {}

    def find_run(self, id_or_dir: str) -> Any | None:
        """The RunInfo of a run id or run directory of this store, or None."""
        try:
            return self.store.resolve(id_or_dir)
        except StudioError:
            return None

    def export_metrics(self, run_ids: list[str], path: str) -> int:
        """Write the runs' metrics as CSV (``core/runs/export.py``); the number of rows."""
        from studio.core.runs.export import export_metrics_csv

        return export_metrics_csv(self.store, run_ids, path)

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
            handle = self.handles.get(m.get("run_id", ""))
            if handle is None:
                continue
            if handle.kind == JobKind.TRAINING:
                self._on_training(m, rows, handle.job.eta_s)
            kind = m.get("type")
            if kind in (protocol.PROGRESS, protocol.METRICS):
                handle.progress.emit(handle.job.fraction, handle.job.text, handle.job.eta_s)
            elif kind == protocol.FRAME:
                handle.frame.emit(m["data"])
            elif kind == protocol.JOB_ENDED:
                del self.handles[handle.id]
                handle.done = True
                handle.ended.emit(m["status"], m.get("message", ""))
                self.job_ended.emit(handle)
        for run_id, r in rows.items():
            self.metrics.emit(run_id, r)

    def _on_training(self, m: dict, rows: dict[str, list], eta_s: float | None) -> None:
        kind, run_id = m.get("type"), m.get("run_id", "")
        if kind == protocol.METRICS:
            rows.setdefault(run_id, []).extend(m["rows"])
            self.progress.emit(run_id, {**{k: m[k] for k in ("step", "total_steps", "epoch", "epochs")},
                                        "eta_s": eta_s})
        elif kind == protocol.STATUS:
            if m["status"] == PAUSED:
                self._set_state(PAUSED)
                self.status_text.emit("Paused")
            elif m["status"] == RUNNING:
                self._set_state(RUNNING)
                self.status_text.emit(f"Training on {m.get('world_size', 1)}× {m.get('device', 'cpu')}"
                                      if "device" in m else "Resumed")
            self.runs_changed.emit()
        elif kind == protocol.LOG:
            self.status_text.emit(m["text"])
        elif kind == protocol.JOB_ENDED:
            self.jobs.pop(run_id, None)
            if not self.jobs:
                self._set_state("idle")
            self.run_ended.emit(run_id, m["status"], m.get("message", ""))
            if m["status"] == FAILED:
                self.error.emit("Training failed", m.get("message") or "the run failed")
            self.runs_changed.emit()
