"""Batch sizes over a run: mini-batches, full-batch gradient descent, a growing batch, and the
linear scaling rule for the learning rate."""

from __future__ import annotations

import math

from studio.core.config import TrainConfig


def plan_batches(n_train: int, train: TrainConfig, world_size: int, full_batch: bool = False) -> list[int]:
    """The per-rank batch size of every epoch.

    ``full_batch``: the whole training set (each rank's share) in one step per epoch. Otherwise the
    global ``batch_size`` split across ranks, multiplied by ``batch_growth`` every ``batch_growth_every``
    epochs ("don't decay the learning rate, increase the batch size", Smith et al. 2018), capped at the
    rank's share of the data.
    """
    share = max(1, math.ceil(n_train / world_size))
    if full_batch:
        return [share] * train.epochs
    base = max(1, train.batch_size // world_size)
    if train.batch_growth_every <= 0 or train.batch_growth == 1.0:
        return [min(base, share)] * train.epochs
    return [min(share, round(base * train.batch_growth ** (e // train.batch_growth_every)))
            for e in range(train.epochs)]


def batch_slices(n: int, batch: int) -> list[slice]:
    """Consecutive slices of ``batch`` samples covering ``n``; a last batch of a single sample joins the
    one before it (batch norm cannot normalise one sample)."""
    starts = list(range(0, n, batch))
    if len(starts) > 1 and n - starts[-1] == 1:
        starts.pop()
    return [slice(start, end) for start, end in zip(starts, [*starts[1:], n], strict=True)]


def steps_per_epoch(n_train: int, batch: int, world_size: int, accumulate: int = 1, limit: int = 0) -> int:
    """Optimizer steps in an epoch: its micro-batches in groups of ``accumulate`` (the last group may be short),
    at most ``limit`` of them when it is set (``train.epoch_steps``)."""
    steps = math.ceil(len(batch_slices(math.ceil(n_train / world_size), batch)) / max(1, accumulate))
    return min(steps, limit) if limit > 0 else steps


def accumulation_groups(n_micro: int, accumulate: int) -> list[tuple[int, int]]:
    """(start, stop) micro-batch indices of each optimizer step of an epoch: ``accumulate`` at a time, the
    epoch's last step taking what is left (the trainer weights each micro-batch by its samples, so every step is
    the mean over its samples, as one batch of them would be)."""
    k = max(1, accumulate)
    return [(start, min(start + k, n_micro)) for start in range(0, n_micro, k)]


def epoch_slices(n: int, batch: int, accumulate: int, limit: int = 0) -> list[slice]:
    """The micro-batches an epoch trains on: all of :func:`batch_slices`, or those of its first ``limit``
    optimizer steps (``train.epoch_steps``; the epoch's order is a fresh shuffle of the whole training set, so
    each epoch sees other samples)."""
    slices = batch_slices(n, batch)
    return slices[:limit * max(1, accumulate)] if limit > 0 else slices


def lr_scale(train: TrainConfig, global_batch: int) -> float:
    """The linear scaling rule (Goyal et al. 2017): η = η_base × batch / base_batch, when switched on."""
    return global_batch / train.base_batch if train.lr_scaling else 1.0
