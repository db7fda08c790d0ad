"""The engine as the GUI sees it: :class:`ProcessEngine` implements ``core/contracts/engine_port.EnginePort``.
A request becomes a process job (not started: the GUI's bridge starts it off its thread), a config a training run,
a resume request a run continued from its checkpoint. The composition root (``studio/app.py``) makes one and hands
it to the window. Torch-free at import, and light: each job's module is imported when the first such job is made.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the window's start-up imports this module: what a job needs comes with the first job
    from studio.core.contracts.engine_port import EnginePort
    from studio.core.contracts.tasks import Task
    from studio.core.contracts.training import ResumeRequest, TrainRequest
    from studio.engine.jobs.process_job import ProcessJob
    from studio.engine.training.launcher import Job

SPARE_CORES = 1  # a run started from the window leaves the window a core (lower priority, same threads)


def _special_jobs() -> dict[Task, Callable[[Any], ProcessJob]]:
    """The tasks whose job is more than a plain TaskJob: a landscape plans its own threads, a data job cleans the
    cache after itself, a demo may be steered while it runs."""
    from studio.core.contracts import tasks
    from studio.engine.tasks.data_import import data_job
    from studio.engine.tasks.demo import demo_job
    from studio.engine.tasks.landscape_job import LandscapeJob

    return {tasks.LANDSCAPE: LandscapeJob, tasks.SHARPNESS: LandscapeJob, tasks.IMPORT: data_job,
            tasks.FETCH: data_job, tasks.PREVIEW: data_job, tasks.DEMO: demo_job}


class ProcessEngine:
    """Background work in child processes (``engine/jobs/process_job.py``), forked from the warm back end."""

    def job(self, task: Task, request: Any) -> ProcessJob:
        from studio.engine.jobs.process_job import task_job

        special = _special_jobs().get(task)
        job: ProcessJob = special(request) if special is not None else task_job(task, request)
        return job

    def training(self, request: TrainRequest, store: Any) -> Job:
        from studio.core.config import RunConfig
        from studio.engine.training.launcher import Job

        return Job(RunConfig.from_dict(request.config), store, spare_cores=SPARE_CORES)

    def resume(self, request: ResumeRequest, store: Any) -> Job:
        from studio.engine.training.launcher import Job
        from studio.engine.training.resume_plan import plan_resume

        plan = plan_resume(store, request.run_id, list(request.overrides))
        return Job(plan.config, store, spare_cores=SPARE_CORES, resume=plan)

    def ensure_scheduler(self, store: Any) -> None:
        from studio.engine.training.scheduler import ensure_scheduler

        ensure_scheduler(store)

    def warm_up(self) -> None:
        from studio.engine.jobs import backend

        backend.start_warm()

    def backend_loading(self) -> bool:
        from studio.engine.jobs import backend

        return backend.loading()

    def end_warm(self) -> None:
        from studio.engine.jobs import backend

        backend.end_warm()


def engine() -> EnginePort:
    """The engine the window uses (typed as the port: mypy checks that ProcessEngine is one)."""
    return ProcessEngine()
