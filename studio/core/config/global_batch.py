"""The global batch of a run: samples per optimizer step over all processes, written the same way in the GUI,
``studio train`` and the samples axis: ``batch × k × ranks = G`` (per-process micro-batch × accumulate_steps ×
processes). ``train.batch_size`` is the batch of one micro-step over all processes, split between them."""

from __future__ import annotations

from studio.core.config import RunConfig


def global_batch(config: RunConfig) -> tuple[int, int, int, int]:
    """(per-process micro-batch, accumulate_steps, processes, global batch G)."""
    ranks = max(1, config.hardware.processes)
    per_rank = max(1, config.train.batch_size // ranks)
    k = max(1, config.train.accumulate_steps)
    return per_rank, k, ranks, per_rank * k * ranks


def global_batch_text(config: RunConfig) -> str:
    """``"64 × 4 × 2 = 512 samples per step (batch per process × accumulate_steps × processes), bf16"``."""
    per_rank, k, ranks, total = global_batch(config)
    return (f"global batch {per_rank} × {k} × {ranks} = {total} samples per optimizer step "
            f"(batch per process × accumulate_steps × processes), precision {config.train.precision}")
