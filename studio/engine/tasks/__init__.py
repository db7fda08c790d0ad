"""The catalog of background tasks: one :class:`Task` per task, naming the ``run(request, progress)`` entry its
child process calls as a ``"module:function"`` string, so the GUI builds a job without importing torch.

Each task module has ``run(request, progress) -> result`` taking the request dataclass of its contract
(``core/contracts/<feature>.py``). This is the only place such a string for a task appears;
``tests/unit/test_task_targets.py`` resolves every one. Torch-free and Qt-free.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Task:
    """One background task: what its child runs, what it is called in messages, and the Session's kind."""

    target: str  # "module:function", called as function(request=..., progress=...) in the child
    label: str
    kind: str
    frames: bool = False  # the function also gets ``emit(frame)`` for live snapshots


EVALUATE = Task("studio.engine.tasks.evaluation:run", "evaluation", "evaluation")
PREDICT = Task("studio.engine.tasks.predict:run", "prediction", "evaluation")
EXPORT_TENSORBOARD = Task("studio.engine.tasks.export:run", "TensorBoard export", "evaluation")
EXPORT_MODEL = Task("studio.engine.tasks.export:run", "model export", "evaluation")
COMPRESS = Task("studio.engine.tasks.compression:run", "compression", "compress")
SWEEP = Task("studio.engine.tasks.compression:run", "sparsity sweep", "compress")
FIT = Task("studio.engine.tasks.fit_runs:run", "fit", "fit")
SCALE = Task("studio.engine.tasks.dp_scaling:run", "scaling measurement", "scale")
GENERATE = Task("studio.engine.tasks.generate:run", "generation", "generate")
DEMO = Task("studio.engine.tasks.demo:run", "demo", "demo", frames=True)
SUMMARY = Task("studio.engine.tasks.summary:run", "model summary", "summary")
IMPORT = Task("studio.engine.tasks.data_import:run", "import", "import")
FETCH = Task("studio.engine.tasks.data_import:run", "download", "import")
PREVIEW = Task("studio.engine.tasks.data_import:run", "augmentation preview", "preview")
READY = Task("studio.engine.tasks.summary:ready", "start-up", "task")  # torch and the training code, nothing else

TASKS: tuple[Task, ...] = (EVALUATE, PREDICT, EXPORT_TENSORBOARD, EXPORT_MODEL, COMPRESS, SWEEP, FIT, SCALE,
                           GENERATE, DEMO, SUMMARY, IMPORT, FETCH, PREVIEW, READY)


def task_job(task: Task, request: Any, label: str | None = None) -> Any:
    """A ``TaskJob`` (not started) running ``task`` on ``request`` in a child process."""
    from studio.engine.jobs.process_job import TaskJob

    return TaskJob(task.target, {"request": request}, label=label or task.label, kind=task.kind,
                   frames=task.frames)
