"""The session: the current RunConfig, every background job, and the run selection.

Widgets edit the config through it and subscribe to its signals. Every background job (training, landscape,
import, preview, demo, model summary, evaluation, …) starts through :meth:`Session.start` with a typed request
whose type names the work (``core/contracts/tasks.task_for``; ``TrainRequest``/``ResumeRequest`` start a run).
The engine (``core/contracts/engine_port.EnginePort``, given by the composition root) makes the job, the bridge
starts it off the GUI thread, and a :class:`JobHandle` brings its signals to the GUI thread. No tab starts a job
itself; the session follows them all in one place. It holds no training state beyond handles to its jobs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, overload

from PySide6.QtCore import QObject, Signal

from studio.core.config import CHOICE_SECTIONS, Choice, RunConfig
from studio.core.contracts import protocol
from studio.core.contracts.engine_port import EnginePort, JobLike, TrainingJobLike
from studio.core.contracts.progress import FAILED, PAUSED, RUNNING, format_eta
from studio.core.contracts.protocol import Received
from studio.core.contracts.tasks import task_for
from studio.core.contracts.training import ResumeRequest, TrainRequest
from studio.core.errors import StudioError
from studio.core.runs.store import RunStore
from studio.core.vocab import JobKind
from studio.gui.session.bridge import Bridge
from studio.gui.session.curve_conversion import CurveConversion
from studio.gui.session.store_follow import StoreFollower

LABEL_ROOM = 48  # characters of a run's name in a status message (the rest of the message stays readable)
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

    def __init__(self, job: JobLike, kind: str, request: Any = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.job = job
        self.kind = kind
        self.request = request  # what was asked (its type names the work)
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
    def errors(self) -> list[Received]:
        """The error messages the job's processes sent (``protocol.error``: the message and its fields)."""
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
        """New parameter values for a running live demo (``Session.start(DemoRequest(..., live=True))``)."""
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
    suggested = Signal(str)  # a model picked in the window: what its suggested settings set or undid ("": nothing)
    job_started = Signal(object)  # a JobHandle
    job_ended = Signal(object)  # a JobHandle, once its job has ended

    def __init__(self, store: RunStore | None = None, config: RunConfig | None = None, *,
                 engine: EnginePort) -> None:
        super().__init__()
        self.engine = engine  # turns requests into jobs (studio/app.py gives it: the GUI imports no engine module)
        self.store = store or RunStore()
        self.config = config or RunConfig()
        self.jobs: dict[str, TrainingJobLike] = {}  # the training runs in progress, by run id
        self.handles: dict[str, JobHandle] = {}  # every job in progress (training included), by job id
        self.state = "idle"
        self._selection: list[str] = []
        self.bridge = Bridge()
        self.bridge.batch.connect(self._on_batch)
        self.bridge.start()
        self._queue: Any = None
        self._announced: Any = None  # the store Recovery already shown (announce_store)
        self._warmed = False  # this session started the warm back end (warm_up): shutdown ends it
        self._first_point: dict[str, str] = {}  # runs of this window with no curve point yet → "Training on …"
        self.conversion: CurveConversion | None = None  # an older store's curves, converted in the background
        # runs the queue's scheduler starts are not this window's jobs: follow them through the store
        self.follower = StoreFollower(self)

    # --- config edits ----------------------------------------------------------------------
    def set_choice(self, section: str, name: str, *, suggest: bool = False) -> None:
        """Pick another registry entry for a section; its parameters start at their defaults. ``suggest`` (a
        person's pick of a model in the window): the model's suggested train settings too, and those of the model
        left back to the shared defaults (core/config/suggested.py), said by ``suggested``."""
        if getattr(self.config, section).name == name:
            return
        if suggest and section == "model":
            from studio.core.config.suggested import pick_model

            self.config, note = pick_model(self.config, name)
            self.config_changed.emit()
            self.suggested.emit(note)
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
    @overload
    def start(self, request: TrainRequest | ResumeRequest) -> JobHandle | None: ...

    @overload
    def start(self, request: Any) -> JobHandle: ...

    def start(self, request: Any) -> JobHandle | None:
        """Start the work ``request`` names and follow it: a task of the catalog (its type names it:
        ``core/contracts/tasks.task_for``; TypeError for a type no task takes), or a run (``TrainRequest``,
        ``ResumeRequest``: None when it is refused, the reason said on ``error`` or ``status_text``)."""
        if isinstance(request, TrainRequest | ResumeRequest):
            return self._start_run(request)
        task = task_for(request)
        return self._follow(self.engine.job(task, request), task.kind, request)

    def _follow(self, job: JobLike, kind: str, request: Any) -> JobHandle:
        """Follow ``job`` (not started yet): the bridge starts it off the GUI thread."""
        handle = JobHandle(job, kind, request, self)
        self.handles[job.id] = handle
        self.bridge.follow(job)
        self.job_started.emit(handle)
        return handle

    def running(self, kind: str | None = None) -> list[JobHandle]:
        """The jobs in progress (of one kind: "training", "landscape", "import", "preview", "demo", "summary")."""
        return [h for h in self.handles.values() if kind is None or h.kind == kind]

    def warm_up(self) -> None:
        """Start the warm back end now (the window calls it once it is on screen)."""
        self._warmed = True
        self.engine.warm_up()

    def convert_old_curves(self) -> None:
        """Convert the curves of the store's runs written before the curve chunks, in a background thread (the
        window calls it once it is on screen); its progress on the status bar. Nothing to do takes a moment."""
        if self.conversion is not None:
            self.conversion.stop(wait_s=0)
        conversion = self.conversion = CurveConversion(self.store, self)
        # a conversion of a store this window has left (File > Watch …) says nothing more
        conversion.progressed.connect(lambda done, total: self._conversion_progressed(conversion, done, total))
        conversion.finished.connect(lambda converted, reason: self._conversion_finished(conversion, reason))
        conversion.start()

    def _conversion_progressed(self, conversion: CurveConversion, done: int, total: int) -> None:
        if conversion is not self.conversion:
            return
        if done < total and self.jobs:  # while this window trains, the status bar is the run's: the end only
            return
        # done/total count steps (a run may need a pack and a chunking: RunStore.convert_curves), not runs
        self.status_text.emit(f"Preparing the curves of runs from an older Studio for quick reading: "
                              f"{100 * done // total} %…" if done < total else
                              "The curves of the runs from an older Studio are ready for quick reading")

    def _conversion_finished(self, conversion: CurveConversion, reason: str) -> None:
        if conversion is self.conversion and reason and reason != "the window closed":
            self.status_text.emit(f"Could not prepare the older runs' curves for quick reading ({reason}); they "
                                  "are read as before, more slowly")

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
        handle = self.start(TrainRequest(self.config.to_dict()))
        return handle.id if handle is not None else None

    def resume_run(self, run_id: str, overrides: list[str] | None = None) -> str | None:
        """Continue a stopped, interrupted or finished run from its last checkpoint, in the same run (its
        curves continue); ``overrides`` like ``["train.epochs=20"]`` extend it. Returns its id (None if refused)."""
        handle = self.start(ResumeRequest(run_id, tuple(overrides or ())))
        return handle.id if handle is not None else None

    def _start_run(self, request: TrainRequest | ResumeRequest) -> JobHandle | None:
        resuming = isinstance(request, ResumeRequest)
        title = "Cannot resume the run" if resuming else "Cannot start training"
        if self.jobs:
            self.status_text.emit("A run is already in progress")
            return None
        if self._refuse_if_watching(title):
            return None
        try:
            if isinstance(request, ResumeRequest):
                job = self.engine.resume(request, self.store)  # the bridge starts it
            else:
                job = self.engine.training(request, self.store)  # lower priority, same threads
        except StudioError as err:
            self.error.emit(title, str(err))
            return None
        if resuming:
            self.set_selection([])  # the curves reload from the store: rows past the checkpoint are redone
        self.jobs[job.run_id] = job
        handle = self._follow(job, JobKind.TRAINING, request)
        self._set_state(RUNNING)
        self.run_started.emit(job.run_id)
        self.runs_changed.emit()
        self.set_selection([job.run_id])
        config = job.config
        waiting = ": waiting for the back end to load PyTorch…" if self.engine.backend_loading() else "…"
        label = self.run_label(job.run_id)
        self.status_text.emit(f"Resuming run {label} from {Path(job.resume_from or '').name}{waiting}"
                              if resuming else f"Starting run {label} ({config.hardware.processes}× "
                                               f"{config.hardware.device}){waiting}")
        self._first_point[job.run_id] = ""  # until its first curve point, the status bar says what it waits for
        return handle

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
        """Stop every job (runs checkpoint), wait for them to exit, then stop the bridge and the warm back end this
        session started."""
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
        if self._warmed:  # a server still importing torch would go on for seconds after the window
            self.engine.end_warm()
        if self.conversion is not None:  # stops between two runs; the rest waits for the next start
            self.conversion.stop()
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
        if self.conversion is not None:  # it converts the store being left: it stops after its current run
            self.conversion.stop(wait_s=0)
            self.conversion = None
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
        if self._refuse_if_watching("Cannot queue the run"):
            return []
        try:
            configs = configs or [(RunConfig.from_dict(self.config.to_dict()), "")]
            ids = [self.queue.add(config, name).id for config, name in configs]
            self.engine.ensure_scheduler(self.store)
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
        self.status_text.emit(f"Run {self.run_label(run_id)}: {'cancelled' if result == 'cancelled' else 'stopping'}")
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

    def run_label(self, run_id: str) -> str:
        """The run as messages name it: its name (``core/runs/names.py``, as the run list shows it) in quotes,
        shortened to :data:`LABEL_ROOM` characters; its id when the store does not know it."""
        from studio.core.runs.names import fit, shown_names

        name = shown_names(self.store).get(run_id)
        return f"“{fit(name, LABEL_ROOM)}”" if name else run_id

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
            if self._first_point.get(run_id):  # its first point: the wait is over
                self.status_text.emit(self._first_point[run_id])
            self._first_point.pop(run_id, None)
            rows.setdefault(run_id, []).extend(m["rows"])
            self.progress.emit(run_id, {**{k: m[k] for k in ("step", "total_steps", "epoch", "epochs")},
                                        "eta_s": eta_s})
        elif kind == protocol.STATUS:
            if m["status"] == PAUSED:
                self._set_state(PAUSED)
                self.status_text.emit("Paused")
            elif m["status"] == RUNNING:
                self._set_state(RUNNING)
                where = f"Training on {m.get('world_size', 1)}× {m.get('device', 'cpu')}"
                if "device" in m and run_id in self._first_point:  # built; its first steps come
                    self._first_point[run_id] = where
                    where += ": first steps…"
                self.status_text.emit(where if "device" in m else "Resumed")
            self.runs_changed.emit()
        elif kind == protocol.LOG:
            stage = m.get("level") == protocol.STAGE
            if not stage or run_id in self._first_point:  # a late stage never hides "Training on …"
                self.status_text.emit(f"Run {self.run_label(run_id)}: {m['text']}…" if stage else m["text"])
        elif kind == protocol.JOB_ENDED:
            self.jobs.pop(run_id, None)
            self._first_point.pop(run_id, None)
            if not self.jobs:
                self._set_state("idle")
            self.run_ended.emit(run_id, m["status"], m.get("message", ""))
            if m["status"] == FAILED:
                self.error.emit("Training failed", m.get("message") or "the run failed")
            self.runs_changed.emit()
