"""A rank process's entry point. Torch-free, so the parent can pickle it (by name) without importing torch; the
child imports the worker (and torch) itself. What the rank gets is engine/training/rank_spec.py's RankSpec."""

from __future__ import annotations

import os
import sys

from studio.engine.training.rank_spec import RankSpec


def rank_main(rank: int, spec: RankSpec) -> None:
    if spec.run_dir:  # before anything can fail: a rank that dies silently still leaves its last words
        from studio.core.contracts import layout
        from studio.engine.jobs import child_stderr

        child_stderr.capture(layout.rank_log_path(spec.run_dir, rank))
    os.environ.update(spec.env)
    if rank == 0 and spec.queue is not None and "torch" not in sys.modules:  # spawned: no warm back end
        from studio.core.contracts import protocol

        spec.queue.put(protocol.stage(spec.run_id, "importing PyTorch"))
    from studio.engine.training.worker import run_rank

    run_rank(rank, spec)
