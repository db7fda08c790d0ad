"""The background task of the Parallelism lab's "DLRM hybrid" page (``core/contracts/tasks.DLRM``): a small DLRM
trained in one process and hybrid-parallel on p rank processes (tables split, all-to-all; MLPs data-parallel,
all-reduce) on the same synthetic clicks (``engine/dlrm``), with the losses, the timeline and memory per rank."""

from __future__ import annotations

from collections.abc import Callable

from studio.core.contracts.dlrm import DlrmRequest, DlrmResult


def run(request: DlrmRequest, progress: Callable[[float, str], None] | None = None) -> DlrmResult:
    """Check ``request`` (a ``ConfigError`` before any rank starts), run it, return the result; ``progress``
    raises Cancelled when the job is stopped (every rank is then ended)."""
    from studio.engine.dlrm.launch import run_dlrm

    return run_dlrm(request, progress)
