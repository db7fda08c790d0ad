"""The DLRM of Naumov et al. (2019), small: a bottom MLP maps the dense features to a vector of the tables'
dimension; each sparse feature looks up its table's row; the dot products of every pair of these T+1 vectors,
with the bottom MLP's output, go through the top MLP to one logit (the click's log-odds, trained with BCE).

Every part is initialised from the seed alone — each table from (seed, its number) — so a table has the same
weights in one process and on the rank that owns it."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any


def mlp(sizes: Sequence[int], last_relu: bool) -> Any:
    """Linear layers of ``sizes`` with ReLUs between (and after the last with ``last_relu``), initialised as
    DLRM's reference code does: weights normal with std √(2/(m+n)), biases normal with std √(1/n) (PyTorch's
    default shrinks the signal through six layers, and the model then learns nothing for hundreds of steps)."""
    import torch
    from torch import nn

    layers: list[Any] = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:], strict=True)):
        linear = nn.Linear(a, b)
        with torch.no_grad():
            linear.weight.normal_(0.0, math.sqrt(2.0 / (a + b)))
            linear.bias.normal_(0.0, math.sqrt(1.0 / b))
        layers.append(linear)
        if i < len(sizes) - 2 or last_relu:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


def build_mlps(dense: int, bottom: Sequence[int], top: Sequence[int], dim: int, tables: int,
               seed: int) -> tuple[Any, Any]:
    """The bottom MLP (dense → … → dim, ReLU after each layer, as DLRM's) and the top MLP (dim + (T+1)T/2 → … →
    1), initialised from ``seed``."""
    import torch

    torch.manual_seed(seed)
    bottom_mlp = mlp([dense, *bottom, dim], last_relu=True)
    top_mlp = mlp([dim + (tables + 1) * tables // 2, *top, 1], last_relu=False)
    return bottom_mlp, top_mlp


def build_table(table: int, rows: int, dim: int, seed: int) -> Any:
    """Table ``table``: ``rows`` × ``dim``, uniform in ±√(1/rows) (DLRM's initialisation) from (seed, table);
    sparse gradients (only the rows a batch looked up)."""
    import torch
    from torch import nn

    emb = nn.Embedding(rows, dim, sparse=True)
    gen = torch.Generator().manual_seed(seed * 100_003 + 1 + table)
    bound = math.sqrt(1.0 / rows)
    with torch.no_grad():
        emb.weight.copy_(torch.rand(rows, dim, generator=gen) * (2 * bound) - bound)
    return emb


def interact(x: Any, vectors: Any) -> Any:
    """The top MLP's input: the bottom output ``x`` [b, d] and the dot products of every pair of the T+1 vectors
    (``vectors`` [b, T, d] after ``x``): [b, d + (T+1)T/2]."""
    import torch

    z = torch.cat([x.unsqueeze(1), vectors], dim=1)
    gram = torch.bmm(z, z.transpose(1, 2))
    i, j = torch.tril_indices(z.shape[1], z.shape[1], offset=-1, device=z.device)
    return torch.cat([x, gram[:, i, j]], dim=1)


def head(bottom: Any, top: Any, dense: Any, vectors: Any, clicks: Any) -> Any:
    """The mean BCE of the batch given its looked-up vectors [b, T, d]."""
    import torch.nn.functional as F

    logits = top(interact(bottom(dense), vectors)).squeeze(1)
    return F.binary_cross_entropy_with_logits(logits, clicks)


def tensor_bytes(tensors: Any) -> int:
    return int(sum(t.numel() * t.element_size() for t in tensors))


def gradient_bytes(parameters: Any) -> int:
    """Bytes of the parameters' gradients: dense ones whole, sparse ones their values and indices."""
    total = 0
    for p in parameters:
        g = p.grad
        if g is None:
            continue
        if g.is_sparse:
            g = g.coalesce()
            total += tensor_bytes([g.values(), g.indices()])
        else:
            total += tensor_bytes([g])
    return total
