"""Directions in weight space: random Gaussian, filter-normalised (Li et al. 2018, §4).

A direction is a dict ``name -> tensor`` shaped like the model's parameters. Filter normalisation
rescales each filter of a direction (a slice along the first dimension: a conv output channel or a
row of a linear layer) to the norm of the matching filter of the weights, so plots of differently
scaled networks compare. Parameters with one dimension or none (biases, BatchNorm/LayerNorm scales)
are zeroed by default, as in the paper; ``include_bias_bn=True`` keeps them the way the paper's code
does (the direction there equals the weights).
"""

from __future__ import annotations

import torch
from torch import nn

Params = dict[str, torch.Tensor]

EPS = 1e-10


def parameters_of(model: nn.Module) -> Params:
    """The model's parameters, detached copies (the state a landscape is centred on)."""
    return {name: p.detach().clone() for name, p in model.named_parameters()}


def is_filtered(tensor: torch.Tensor) -> bool:
    """True for weights with filters (two or more dimensions); False for biases and norm scales."""
    return tensor.dim() > 1


def random_direction(weights: Params, generator: torch.Generator) -> Params:
    """A standard Gaussian direction shaped like ``weights`` (drawn on the CPU so a seed gives the same
    direction on every device)."""
    return {
        name: torch.randn(w.shape, generator=generator, dtype=torch.float32).to(w.device, w.dtype)
        for name, w in weights.items()
    }


def filter_normalize(direction: Params, weights: Params, include_bias_bn: bool = False) -> Params:
    """Scale every filter of ``direction`` to the norm of the matching filter of ``weights``.

    One-dimensional parameters are zeroed, or with ``include_bias_bn`` set to the weights themselves.
    """
    out: Params = {}
    for name, d in direction.items():
        w = weights[name]
        if not is_filtered(w):
            out[name] = w.clone() if include_bias_bn else torch.zeros_like(w)
            continue
        shape = (-1,) + (1,) * (w.dim() - 1)
        d_norm = d.flatten(1).norm(dim=1).reshape(shape)
        w_norm = w.flatten(1).norm(dim=1).reshape(shape)
        out[name] = d * (w_norm / (d_norm + EPS))
    return out


def normalized_directions(weights: Params, count: int = 2, seed: int = 0,
                          include_bias_bn: bool = False) -> list[Params]:
    """``count`` random, filter-normalised directions around ``weights`` (seeded)."""
    gen = torch.Generator().manual_seed(seed)
    return [filter_normalize(random_direction(weights, gen), weights, include_bias_bn) for _ in range(count)]


def difference(a: Params, b: Params) -> Params:
    """``a - b`` per parameter."""
    return {name: a[name] - b[name] for name in a}


def without_bias_bn(direction: Params) -> Params:
    """The direction with its one-dimensional parameters zeroed."""
    return {name: d if is_filtered(d) else torch.zeros_like(d) for name, d in direction.items()}


def flatten(params: Params, names: list[str] | None = None) -> torch.Tensor:
    """One vector of the parameters, in ``names`` order (default: dict order)."""
    names = list(params) if names is None else names
    return torch.cat([params[n].reshape(-1) for n in names])


def unflatten(vector: torch.Tensor, like: Params) -> Params:
    """The inverse of :func:`flatten` for parameters shaped like ``like``."""
    out: Params = {}
    start = 0
    for name, t in like.items():
        out[name] = vector[start:start + t.numel()].view_as(t)
        start += t.numel()
    return out
