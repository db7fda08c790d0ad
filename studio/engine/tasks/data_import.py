"""Imports and other slow data work (catalog downloads, augmentation previews) as background jobs
(``engine/jobs/process_job.py``): progress, cancel (the import checks a flag), and a cancelled or killed
import leaves nothing in the cache. The result is the import's report.

Torch-free and Qt-free at import.
"""

from __future__ import annotations

from typing import Any

from studio.core.contracts.jobs import FetchRequest, ImportRequest, ImportResult, PreviewRequest, PreviewResult
from studio.core.contracts.tasks import task_for
from studio.core.datasets import cache
from studio.core.vocab import JobKind
from studio.engine.jobs.process_job import TaskJob


class ImportJob(TaskJob):
    """A data job; when it ends, whatever its process had half-written in the cache is removed."""

    def __init__(self, target: str, label: str = "import", kind: str = JobKind.IMPORT, **kwargs: Any) -> None:
        super().__init__(target, kwargs, label=label, kind=kind)

    def _on_end(self, forced: str | None) -> None:
        for proc in self.processes:
            if proc.pid is not None:
                cache.remove_staging(proc.pid)  # a killed import's half-written folder


def run(request: ImportRequest | FetchRequest | PreviewRequest, progress: Any = None) -> ImportResult | PreviewResult:
    """The background task (``engine/tasks.IMPORT``, ``FETCH``, ``PREVIEW``)."""
    if isinstance(request, FetchRequest):
        from studio.core.datasets.torchvision_catalog import ensure

        return ensure(request.name, progress)
    if isinstance(request, PreviewRequest):
        from studio.engine.loop.augment import preview  # imports torch

        if progress is not None:
            progress.stage("loading the dataset")
        return preview(request.name, request.params, request.count, request.seed)
    from studio.core.datasets.importers.options import ImportOptions
    from studio.core.datasets.importers.pipeline import import_path

    fields: dict[str, Any] = {k: (tuple(v) if isinstance(v, list) else v) for k, v in request.options.items()}
    opts = ImportOptions(**fields)
    return import_path(request.path, opts, progress)


DataRequest = ImportRequest | FetchRequest | PreviewRequest


def data_job(request: DataRequest) -> ImportJob:
    """The import, fetch or preview job of ``request`` (not started)."""
    task = task_for(request)
    return ImportJob(task.target, label=task.label, kind=task.kind, request=request)


def import_job(path: str, options: dict[str, Any] | None = None) -> ImportJob:
    return data_job(ImportRequest(path, dict(options or {})))


def start_import(path: str, options: dict[str, Any] | None = None) -> ImportJob:
    job = import_job(path, options)
    job.start()
    return job
