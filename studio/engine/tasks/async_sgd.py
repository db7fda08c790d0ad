"""The background task of the Async SGD page (``engine/tasks.ASYNC_SGD``): a parameter server and k workers over
``torch.distributed.rpc`` (sync, async, async with the staleness-aware rate) and Hogwild, measured on this
machine (``engine/async_sgd``)."""

from __future__ import annotations

from typing import Any

from studio.core.contracts.async_sgd import AsyncRequest, AsyncResult


def run(request: AsyncRequest, progress: Any = None) -> AsyncResult:
    """Every mode of ``request``; ``progress(fraction, text)`` also raises Cancelled when the job is stopped (the
    processes are then ended)."""
    from studio.engine.async_sgd.launch import study

    return study(request, progress)  # type: ignore[return-value]
