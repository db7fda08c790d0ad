"""The background task of the Parallelism lab's "Ring all-reduce" page (``core/contracts/tasks.ALLREDUCE``): the
ring, a central server and torch's ``all_reduce`` summing one vector on p rank processes (``engine/allreduce``),
with each rank's bytes and time and the timelines of one p."""

from __future__ import annotations

from collections.abc import Callable

from studio.core.contracts.allreduce import AllreduceRequest, AllreduceResult


def run(request: AllreduceRequest, progress: Callable[[float, str], None] | None = None) -> AllreduceResult:
    """Check ``request`` (a ``ConfigError`` before any rank starts), run it, return the result; ``progress``
    raises Cancelled when the job is stopped (every rank is then ended)."""
    from studio.engine.allreduce.launch import run_allreduce

    return run_allreduce(request, progress)
