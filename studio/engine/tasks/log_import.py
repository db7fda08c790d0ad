"""TensorBoard logs imported as runs, as a background task (``core/contracts/tasks.IMPORT_LOGS``; the window's
drop or Open of a log folder): ``core/runs/tensorboard_import.py`` in a child process, its progress per run.
Cancel stops it between runs: the runs imported so far stay (each is whole), the rest are not started.

Torch-free and Qt-free.
"""

from __future__ import annotations

from typing import Any

from studio.core.contracts.jobs import LogImportRequest, LogImportResult


def run(request: LogImportRequest, progress: Any = None) -> LogImportResult:
    """Import ``request.logdir`` into the store at ``request.home``; the report as plain values."""
    from studio.core.runs.store import RunStore
    from studio.core.runs.tensorboard_import import import_logs

    store = RunStore(request.home)
    try:
        report = import_logs(request.logdir, store, progress=progress)
    finally:
        store.close()
    return LogImportResult(imported=list(report.imported), unchanged=list(report.unchanged),
                           foreign=[str(p) for p in report.foreign], truncated=[str(p) for p in report.truncated],
                           line=report.line())
