"""Ghost Batch Norm (Hoffer, Hubara & Soudry 2017): batch statistics over virtual batches.

While training, a batch larger than ``virtual_batch`` is cut into near-equal chunks of about that
size and each chunk is normalised with its own mean and variance, so a large batch keeps the
regularising noise of small-batch statistics. Evaluation uses the running statistics as usual.
The swap keeps the parameter and buffer names, so checkpoints load into the plain model.
"""

from __future__ import annotations

import math

import torch
from torch import nn
from torch.nn.modules.batchnorm import _BatchNorm


class _Ghost(_BatchNorm):
    """Batch norm per virtual batch; a subclass lists it before BatchNorm1d/2d, whose forward runs per chunk."""

    virtual_batch: int = 0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        normalise = super().forward
        if not self.training or x.shape[0] <= self.virtual_batch:
            return normalise(x)
        return torch.cat([normalise(chunk) for chunk in x.chunk(math.ceil(x.shape[0] / self.virtual_batch))])


class GhostBatchNorm1d(_Ghost, nn.BatchNorm1d):
    pass


class GhostBatchNorm2d(_Ghost, nn.BatchNorm2d):
    pass


_GHOSTS: dict[type[nn.Module], type[_Ghost]] = {nn.BatchNorm1d: GhostBatchNorm1d, nn.BatchNorm2d: GhostBatchNorm2d}


def use_ghost_batch_norm(model: nn.Module, virtual_batch: int) -> int:
    """Replace every BatchNorm1d/2d in ``model`` by its ghost version; returns how many were replaced."""
    replaced = 0
    for parent in list(model.modules()):
        for name, child in list(parent.named_children()):
            ghost_cls = _GHOSTS.get(type(child))
            if ghost_cls is None or not isinstance(child, _BatchNorm):
                continue
            ghost = ghost_cls(child.num_features, child.eps, child.momentum, child.affine,
                              child.track_running_stats, device=_device(child))
            ghost.load_state_dict(child.state_dict())
            for new, old in zip(ghost.parameters(), child.parameters(), strict=True):
                new.requires_grad_(old.requires_grad)  # a frozen layer stays frozen
            ghost.train(child.training)
            ghost.virtual_batch = virtual_batch
            setattr(parent, name, ghost)
            replaced += 1
    return replaced


def _device(module: nn.Module) -> torch.device | None:
    tensors = list(module.parameters()) + list(module.buffers())
    return tensors[0].device if tensors else None
