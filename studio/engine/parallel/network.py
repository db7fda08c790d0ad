"""The network every mode trains: an MLP on flattened images as one flat ``nn.Sequential`` (Linear, ReLU, …,
Linear: no dropout, no batch norm, so every mode does the same maths), and its layers as blocks (a Linear with
the ReLU after it) with their compute cost, the unit the stages split."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def dims(in_dim: int, widths: Sequence[int], classes: int) -> list[tuple[int, int]]:
    """(fan-in, fan-out) of each Linear: the layers the stages split, in order."""
    sizes = [in_dim, *widths, classes]
    return list(zip(sizes[:-1], sizes[1:], strict=True))


def block_costs(in_dim: int, widths: Sequence[int], classes: int) -> list[float]:
    """Multiply-adds per sample of each layer's forward and backward: a Linear's forward is ``a·b``, its backward
    ``2·a·b`` (the weight's gradient and the input's), but the first layer's input needs no gradient (``a·b``)."""
    return [float(a * b * (2 if i == 0 else 3)) for i, (a, b) in enumerate(dims(in_dim, widths, classes))]


def build_mlp(in_dim: int, widths: Sequence[int], classes: int, seed: int) -> Any:
    """The MLP, initialised from ``seed`` (the same weights in every mode and on every rank)."""
    import torch
    from torch import nn

    torch.manual_seed(seed)
    layers: list[nn.Module] = []
    for i, (a, b) in enumerate(dims(in_dim, widths, classes)):
        layers.append(nn.Linear(a, b))
        if i < len(widths):
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


def layer_names(widths: Sequence[int]) -> list[str]:
    """A readable name per layer (block): ``fc1 784→512`` needs the input size; here ``fc1`` … ``fcN``."""
    return [f"fc{i + 1}" for i in range(len(widths) + 1)]


def stage_modules(net: Any, sizes: Sequence[int]) -> list[Any]:
    """The contiguous stages of ``net`` (blocks per stage ``sizes``): each an ``nn.Sequential`` sharing ``net``'s
    layers (a block is a Linear and, but for the last, its ReLU)."""
    from torch import nn

    children = list(net.children())
    blocks: list[list[nn.Module]] = []
    for child in children:
        if isinstance(child, nn.Linear):
            blocks.append([child])
        else:
            blocks[-1].append(child)
    out, i = [], 0
    for size in sizes:
        out.append(nn.Sequential(*[m for block in blocks[i:i + size] for m in block]))
        i += size
    return out
