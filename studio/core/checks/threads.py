"""Run a check's torch work on one thread: the same numbers on every machine (a thread count changes the
order of floating-point sums) and no spinning OpenMP threads on a shared CPU (see DESIGN.md, CPU sharing)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def one_thread() -> Iterator[None]:
    """torch on one intra-op thread inside the block; the caller's setting back after it."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)
