"""What the GUI needs of the engine, as protocols: the GUI imports nothing from ``studio.engine``; the composition
root (``studio/app.py``) hands it an :class:`EnginePort` (``studio/engine/port.py`` implements it).

:class:`JobLike` is what the bridge and a job handle read of a background job; :class:`TrainingJobLike` adds what
the session asks of a training run. Torch-free and Qt-free.
"""

from __future__ import annotations

from typing import Any, Protocol

from studio.core.contracts.protocol import EndedMessage, Received
from studio.core.contracts.tasks import Task
from studio.core.contracts.training import ResumeRequest, TrainRequest


class JobLike(Protocol):
    """A background job in child processes (``engine/jobs/process_job.ProcessJob``), not started when made."""

    id: str
    label: str
    state: str
    fraction: float
    text: str
    eta_s: float | None
    result: Any
    errors: list[Received]
    finished: bool

    @property
    def run_id(self) -> str: ...

    @property
    def started(self) -> bool: ...

    @property
    def error(self) -> str | None: ...

    def start(self) -> Any: ...

    def poll(self, timeout: float = 0.0, max_messages: int = 5000) -> list[Received]: ...

    def ended_message(self) -> EndedMessage: ...

    def cancel(self) -> None: ...

    def kill(self) -> None: ...

    def send(self, command: str) -> None: ...

    def set_params(self, params: dict[str, Any]) -> None: ...


class TrainingJobLike(JobLike, Protocol):
    """A training run in progress (``engine/training/launcher.Job``)."""

    config: Any  # its RunConfig (core/config sits above the contracts)
    resume_from: str | None  # the checkpoint a resumed run starts from

    def stop(self) -> None: ...

    def pause(self) -> None: ...

    def resume(self) -> None: ...


class EnginePort(Protocol):
    """Turns requests into background jobs (not started: the session's bridge starts them) and keeps the
    back end ready. ``store`` is the session's ``core/runs/store.RunStore``."""

    def job(self, task: Task, request: Any) -> JobLike:
        """A job running ``task`` (``core/contracts/tasks.py``) on ``request``."""
        ...

    def training(self, request: TrainRequest, store: Any) -> TrainingJobLike:
        """A new run of ``request.config`` in ``store``; a StudioError when the config cannot run here."""
        ...

    def resume(self, request: ResumeRequest, store: Any) -> TrainingJobLike:
        """The run ``request.run_id`` continued from its checkpoint; a StudioError when it cannot be."""
        ...

    def ensure_scheduler(self, store: Any) -> None:
        """A detached scheduler serves ``store``'s queue (started unless one already does)."""
        ...

    def warm_up(self) -> None:
        """Start the warm back end (a server that imports torch now, so the first job forks instead)."""
        ...

    def backend_loading(self) -> bool:
        """Whether the warm back end is still importing torch (a job started now waits for it)."""
        ...

    def end_warm(self) -> None:
        """End the warm back end's servers (the window is closing), even while they still import torch."""
        ...
