"""Reading what child processes left on a multiprocessing queue (shared by the job classes)."""

from __future__ import annotations

import queue as queue_mod
from typing import Any

_GONE = (queue_mod.Empty, EOFError, OSError)


def drain(q: Any, first_timeout: float = 0.0, each_timeout: float = 0.0, limit: int | None = None) -> list[Any]:
    """Everything waiting on ``q``: wait up to ``first_timeout`` for the first item and ``each_timeout`` for
    each further one (after a process ended its feeder may still be flushing), stop after ``limit`` items."""
    out: list[Any] = []
    try:
        out.append(q.get(timeout=first_timeout) if first_timeout else q.get_nowait())
        while limit is None or len(out) < limit:
            out.append(q.get(timeout=each_timeout) if each_timeout else q.get_nowait())
    except _GONE:
        pass
    return out
