"""The target of spawned rank processes. Torch-free, so the parent can pickle a reference to it
without importing torch; the child imports the worker (and torch) itself."""

from __future__ import annotations

from typing import Any


def rank_main(rank: int, spec: dict[str, Any]) -> None:
    from studio.engine.worker import run_rank

    run_rank(rank, spec)
