"""The catalog of background tasks: one :class:`Task` per task, naming the ``run(request, progress)`` entry its
child process calls as a ``"module:function"`` string (``core/targets.py``), so the GUI names a job without importing
torch or any engine module; the engine's ``engine/jobs/process_job.task_job`` turns a Task and its request into a
process.

The request's type names its task (:func:`task_for`, :data:`TASK_OF_REQUEST`): ``Session.start(request)`` needs no
other word. Each task module has ``run(request, progress) -> result`` taking the request dataclass of its contract
(``core/contracts/<feature>.py``). This is the only place such a string for a task appears;
``tests/unit/test_task_targets.py`` resolves every one. Torch-free and Qt-free.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from studio.core.targets import target_of
from studio.core.vocab import JobKind


@dataclass(frozen=True)
class Task:
    """One background task: what its child runs, what it is called in messages, and the Session's kind."""

    target: str  # "module:function", called as function(request=..., progress=...) in the child
    label: str
    kind: JobKind
    frames: bool = False  # the function also gets ``emit(frame)`` for live snapshots


EVALUATE = Task("studio.engine.tasks.evaluation:run", "evaluation", JobKind.EVALUATION)
PREDICT = Task("studio.engine.tasks.predict:run", "prediction", JobKind.EVALUATION)
ACTIVATIONS = Task("studio.engine.tasks.activations:run", "layer activations", JobKind.EVALUATION)
EXPORT_TENSORBOARD = Task("studio.engine.tasks.export:run", "TensorBoard export", JobKind.EVALUATION)
EXPORT_MODEL = Task("studio.engine.tasks.export:run", "model export", JobKind.EVALUATION)
COMPRESS = Task("studio.engine.tasks.compression:run", "compression", JobKind.COMPRESS)
SWEEP = Task("studio.engine.tasks.compression:run", "sparsity sweep", JobKind.COMPRESS)
FIT = Task("studio.engine.tasks.fit_runs:run", "fit", JobKind.FIT)
SCALE = Task("studio.engine.tasks.dp_scaling:run", "scaling measurement", JobKind.SCALE)
ASYNC_SGD = Task("studio.engine.tasks.async_sgd:run", "async SGD study", JobKind.SCALE)
PARALLEL = Task("studio.engine.tasks.parallel:run", "one model four ways", JobKind.SCALE, frames=True)
ALLREDUCE = Task("studio.engine.tasks.allreduce:run", "ring all-reduce study", JobKind.SCALE)
DLRM = Task("studio.engine.tasks.dlrm:run", "DLRM hybrid-parallel study", JobKind.SCALE)
GENERATE = Task("studio.engine.tasks.generate:run", "generation", JobKind.GENERATE)
ATTENTION = Task("studio.engine.tasks.attention:run", "attention maps", JobKind.EVALUATION)
DEMO = Task("studio.engine.tasks.demo:run", "demo", JobKind.DEMO, frames=True)
SUMMARY = Task("studio.engine.tasks.summary:run", "model summary", JobKind.SUMMARY)
IMPORT = Task("studio.engine.tasks.data_import:run", "import", JobKind.IMPORT)
FETCH = Task("studio.engine.tasks.data_import:run", "download", JobKind.IMPORT)
PREVIEW = Task("studio.engine.tasks.data_import:run", "augmentation preview", JobKind.PREVIEW)
IMPORT_LOGS = Task("studio.engine.tasks.log_import:run", "TensorBoard import", JobKind.IMPORT)
DATALOAD = Task("studio.engine.tasks.dataload:run", "input-pipeline sweep", JobKind.TASK)
PAPER_CHECK = Task("studio.engine.tasks.paper_check:run", "paper check", JobKind.CHECK)
SCHEDULE = Task("studio.engine.tasks.schedule:run", "scheduling replay", JobKind.TASK)
READY = Task("studio.engine.tasks.summary:ready", "start-up", JobKind.TASK)  # torch and the training code, nothing else

# landscapes and sharpness: the request names the run folder (LandscapeJobRequest, SharpnessJobRequest)
LANDSCAPE = Task("studio.engine.tasks.landscape_job:run_landscape", "landscape", JobKind.LANDSCAPE, frames=True)
SHARPNESS = Task("studio.engine.tasks.landscape_job:run_sharpness", "sharpness", JobKind.SHARPNESS)
NOISE_SCALE = Task("studio.engine.tasks.noise_scale:run", "gradient noise scale", JobKind.EVALUATION)
LR_FIND = Task("studio.engine.tasks.lr_find:run", "learning-rate range test", JobKind.SEARCH)

TASKS: tuple[Task, ...] = (EVALUATE, PREDICT, ACTIVATIONS, EXPORT_TENSORBOARD, EXPORT_MODEL, COMPRESS, SWEEP, FIT,
                           SCALE, GENERATE, ATTENTION, DEMO, SUMMARY, IMPORT, FETCH, PREVIEW, READY, LANDSCAPE,
                           SHARPNESS, PAPER_CHECK, SCHEDULE, ASYNC_SGD, DATALOAD, PARALLEL, NOISE_SCALE,
                           ALLREDUCE, DLRM, IMPORT_LOGS, LR_FIND)

# Each request type names one task: a new task's request is a type of its own. The types are named by their
# ``"module:name"`` target, so the catalog imports no contract module (the window's start-up reads it).
TASK_OF_REQUEST: dict[str, Task] = {
    "studio.core.contracts.evaluation:EvaluationRequest": EVALUATE,
    "studio.core.contracts.evaluation:PredictRequest": PREDICT,
    "studio.core.contracts.activations:ActivationsRequest": ACTIVATIONS,
    "studio.core.contracts.export:TensorBoardExportRequest": EXPORT_TENSORBOARD,
    "studio.core.contracts.export:ModelExportRequest": EXPORT_MODEL,
    "studio.core.contracts.compression:CompressRequest": COMPRESS,
    "studio.core.contracts.compression:SweepRequest": SWEEP,
    "studio.core.contracts.scaling:FitRequest": FIT,
    "studio.core.contracts.scaling:ScaleRequest": SCALE,
    "studio.core.contracts.async_sgd:AsyncRequest": ASYNC_SGD,
    "studio.core.contracts.parallel:ParallelRequest": PARALLEL,
    "studio.core.contracts.generate:GenerateRequest": GENERATE,
    "studio.core.contracts.attention:AttentionRequest": ATTENTION,
    "studio.core.contracts.jobs:DemoRequest": DEMO,
    "studio.core.contracts.jobs:SummaryRequest": SUMMARY,
    "studio.core.contracts.jobs:ImportRequest": IMPORT,
    "studio.core.contracts.jobs:FetchRequest": FETCH,
    "studio.core.contracts.jobs:PreviewRequest": PREVIEW,
    "studio.core.contracts.dataload:DataloadRequest": DATALOAD,
    "studio.core.contracts.checks:CheckRequest": PAPER_CHECK,
    "studio.core.contracts.schedule:ScheduleRequest": SCHEDULE,
    "studio.core.contracts.landscape:LandscapeJobRequest": LANDSCAPE,
    "studio.core.contracts.landscape:SharpnessJobRequest": SHARPNESS,
    "studio.core.contracts.noise_scale:NoiseScaleRequest": NOISE_SCALE,
    "studio.core.contracts.allreduce:AllreduceRequest": ALLREDUCE,
    "studio.core.contracts.dlrm:DlrmRequest": DLRM,
    "studio.core.contracts.jobs:LogImportRequest": IMPORT_LOGS,
    "studio.core.contracts.lr_find:LrFindRequest": LR_FIND,
}


def task_for(request: Any) -> Task:
    """The task that runs ``request`` (its type names it); TypeError for a type no task takes."""
    task = TASK_OF_REQUEST.get(target_of(type(request)))
    if task is None:
        raise TypeError(f"no background task takes a {type(request).__name__}")
    return task
