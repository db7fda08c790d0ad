"""Datasets as tensors on the training device: a batch is an index gather, normalisation a batch op."""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

from studio.core.maths.normalise import normalise, pixel_scale
from studio.engine.loop.distributed import DistContext


class DeviceData:
    """One split (x, y) on the device, with the training set's mean/std for normalisation."""

    def __init__(self, x: torch.Tensor, y: torch.Tensor, mean: torch.Tensor, std: torch.Tensor,
                 device: torch.device) -> None:
        self.x = x.to(device)
        self.y = y.to(device)
        self.mean = mean.to(device)
        self.std = std.to(device)
        self.scale = pixel_scale(x)
        self.augment: Callable[[torch.Tensor], torch.Tensor] | None = None  # random transforms (training/augment.py)
        self.center = False  # subtract each sample's mean (sample-wise centering)
        self.tokens = x.dtype == torch.int64  # word indices (text): gathered as they are, never normalised

    def __len__(self) -> int:
        return len(self.y)

    def _centred(self, x: torch.Tensor) -> torch.Tensor:
        return x - x.mean(dim=tuple(range(1, x.dim())), keepdim=True) if self.center else x

    def normalise(self, x: torch.Tensor) -> torch.Tensor:
        if self.tokens:
            return x
        return self._centred(normalise(x, self.mean, self.std, self.scale))

    def batch(self, idx: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """A gathered batch, normalised, then augmented on the device (training split only)."""
        if self.tokens:
            return self.x[idx], self.y[idx]
        x = normalise(self.x[idx], self.mean, self.std, self.scale)
        if self.augment is not None:
            x = self.augment(x)
        return self._centred(x), self.y[idx]

    def fetcher(self, order: torch.Tensor, slices: list[slice], skip: int, seed: int,
                epoch: int) -> Callable[[int], tuple[torch.Tensor, torch.Tensor]]:
        """Batch ``i`` of the epoch: the gather of its slice of ``order`` (engine/loop/loader_data.py reads it
        through a DataLoader instead)."""
        return lambda i: self.batch(order[slices[i]])

    def slices(self, batch: int, ctx: DistContext):
        """This rank's contiguous share of the split in batches (for evaluation; unpadded)."""
        n = len(self)
        lo, hi = n * ctx.rank // ctx.world_size, n * (ctx.rank + 1) // ctx.world_size
        for start in range(lo, hi, batch):
            end = min(start + batch, hi)
            yield self.normalise(self.x[start:end]), self.y[start:end]


def epoch_shard(n: int, epoch: int, seed: int, ctx: DistContext) -> torch.Tensor:
    """DistributedSampler semantics: a seeded shuffle, padded to a multiple of the world size by
    wrapping, then every world_size-th index from this rank's offset."""
    gen = torch.Generator().manual_seed(seed * 100_003 + epoch)
    perm = torch.randperm(n, generator=gen)
    total = math.ceil(n / ctx.world_size) * ctx.world_size
    if total > n:
        perm = torch.cat([perm, perm[: total - n]])
    return perm[ctx.rank::ctx.world_size]
