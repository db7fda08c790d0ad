"""Imports and other slow data work (catalog downloads, augmentation previews) as background jobs
(``engine/jobs/process_job.py``): progress, cancel (the import checks a flag), and a cancelled or killed
import leaves nothing in the cache. The result is the import's report.

Torch-free and Qt-free at import.
"""

from __future__ import annotations

from typing import Any

from studio.core.datasets import cache
from studio.core.vocab import JobKind
from studio.engine.jobs.process_job import TaskJob


class ImportJob(TaskJob):
    """A data job; when it ends, whatever its process had half-written in the cache is removed."""

    def __init__(self, target: str, label: str = "import", **kwargs: Any) -> None:
        super().__init__(target, kwargs, label=label, kind=JobKind.IMPORT)

    def _on_end(self, forced: str | None) -> None:
        for proc in self.processes:
            if proc.pid is not None:
                cache.remove_staging(proc.pid)  # a killed import's half-written folder


def run_import(path: str, options: dict[str, Any] | None = None, progress: Any = None) -> dict[str, Any]:
    """The child's import (options as a dict of ImportOptions fields)."""
    from studio.core.datasets.importers import ImportOptions, import_path

    opts = ImportOptions(**{k: (tuple(v) if isinstance(v, list) else v) for k, v in (options or {}).items()})
    return import_path(path, opts, progress)


def run_fetch(name: str, progress: Any = None) -> dict[str, Any]:
    """The child's catalog fetch (local files or a download)."""
    from studio.core.datasets.torchvision_catalog import ensure

    return ensure(name, progress)


def run_preview(name: str, params: dict[str, Any], count: int = 16, seed: int = 0, progress: Any = None) -> dict:
    """The child's augmentation preview (imports torch)."""
    from studio.engine.training.augment import preview

    if progress is not None:
        progress.stage("loading the dataset")
    return preview(name, params, count, seed)


def import_job(path: str, options: dict[str, Any] | None = None) -> ImportJob:
    return ImportJob("studio.engine.tasks.data_import:run_import", path=path, options=options or {})


def fetch_job(name: str) -> ImportJob:
    return ImportJob("studio.engine.tasks.data_import:run_fetch", label="download", name=name)


def preview_job(name: str, params: dict[str, Any], count: int = 16, seed: int = 0) -> ImportJob:
    return ImportJob("studio.engine.tasks.data_import:run_preview", label="augmentation preview", name=name,
                     params=params, count=count, seed=seed)


def start_import(path: str, options: dict[str, Any] | None = None) -> ImportJob:
    job = import_job(path, options)
    job.start()
    return job
