"""The background task of the Parallelism lab's "one model four ways" page (``engine/tasks.PARALLEL``): the
same MLP trained single-process, DDP, model-parallel and pipelined on ``request.ranks`` rank processes
(``engine/parallel``), with their speeds, loss curves, memory per rank and measured timelines."""

from __future__ import annotations

from collections.abc import Callable

from studio.core.contracts.parallel import ParallelRequest, ParallelResult


def run(request: ParallelRequest, progress: Callable[[float, str], None] | None = None,
        emit: Callable[[ParallelResult], None] | None = None) -> ParallelResult:
    """Check ``request`` (a ``ConfigError`` before any rank starts), run it, return the result; ``emit``: a frame
    per configuration as it finishes (the result so far)."""
    from studio.engine.parallel.launch import run_parallel

    return run_parallel(request, progress, emit)
