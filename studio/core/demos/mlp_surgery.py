"""Changing a small MLP while it trains (the live playground): its activation or dropout (the weights stay),
its widths and depth (the weights that still fit stay, new ones start small), and its optimizer's state carried
over to the resized weights. The MLP is ``Flatten, (Linear, act[, Dropout])*, Linear`` as
``core/models/builders.build_mlp`` makes it; here it is held as its list of Linear layers.
"""

from __future__ import annotations

import torch
from torch import nn

from studio.core.models.builders import _ACT

SMALL = 0.01  # new weights that feed an existing unit start at this fraction of their usual size


def linears(model: nn.Module) -> list[nn.Linear]:
    return [m for m in model.modules() if isinstance(m, nn.Linear)]


def assemble(layers: list[nn.Linear], activation: str, dropout: float) -> nn.Sequential:
    """The MLP of these Linear layers (the same modules: the optimizer keeps them) with ``activation`` and
    ``dropout`` after each hidden one."""
    parts: list[nn.Module] = [nn.Flatten()]
    for layer in layers[:-1]:
        parts += [layer, _ACT[activation]()]
        if dropout > 0:
            parts.append(nn.Dropout(dropout))
    parts.append(layers[-1])
    return nn.Sequential(*parts)


def _resized(old: nn.Linear | None, n_in: int, n_out: int) -> nn.Linear:
    """A Linear(n_in, n_out) that keeps ``old``'s weights where they fit. New output units get the usual random
    incoming weights (so they compute something); new inputs (units added below) get small weights, so the
    function barely changes. A new layer (``old`` None) starts near the identity: it passes its input on."""
    layer = nn.Linear(n_in, n_out)
    with torch.no_grad():
        if old is None:
            k = min(n_in, n_out)
            layer.weight.mul_(SMALL)
            layer.weight[:k, :k] += torch.eye(k)
            layer.bias.zero_()
            return layer
        o, i = min(n_out, old.out_features), min(n_in, old.in_features)
        layer.weight[:, i:] *= SMALL
        layer.weight[:o, :i] = old.weight[:o, :i]
        layer.bias[:o] = old.bias[:o]
    return layer


def resize(layers: list[nn.Linear], widths: list[int]) -> tuple[list[nn.Linear], dict[int, int]]:
    """The layers for hidden ``widths`` (the output layer last) and which new layer came from which old one
    (index → index) so the optimizer's state can follow. Layer ``i`` keeps layer ``i``'s weights; added
    layers go after the last hidden one; the output layer stays the output layer."""
    old_hidden, old_out = layers[:-1], layers[-1]
    n_in = layers[0].in_features
    out: list[nn.Linear] = []
    origin: dict[int, int] = {}
    for i, w in enumerate(widths):
        old = old_hidden[i] if i < len(old_hidden) else None
        if old is not None and old.in_features == n_in and old.out_features == w:
            out.append(old)  # unchanged: the same module
        else:
            out.append(_resized(old, n_in, w))
        if old is not None:
            origin[i] = i
        n_in = w
    if old_out.in_features == n_in:
        out.append(old_out)
    else:
        out.append(_resized(old_out, n_in, old_out.out_features))
    origin[len(out) - 1] = len(layers) - 1
    return out, origin


def _fit(tensor: torch.Tensor, shape: torch.Size) -> torch.Tensor:
    """``tensor`` cut or zero-padded to ``shape`` (an optimizer's per-weight state for a resized weight)."""
    out = torch.zeros(shape, dtype=tensor.dtype)
    block = tuple(slice(0, min(a, b)) for a, b in zip(shape, tensor.shape, strict=True))
    out[block] = tensor[block]
    return out


def carry_state(old_opt: torch.optim.Optimizer, new_opt: torch.optim.Optimizer, old: list[nn.Linear],
                new: list[nn.Linear], origin: dict[int, int]) -> None:
    """Copy the optimizer's state (momentum, Adam's moments and step count) from ``old`` layers to the ``new``
    ones they came from, cut or zero-padded to the new shapes."""
    for j, i in origin.items():
        for name in ("weight", "bias"):
            p_old, p_new = getattr(old[i], name), getattr(new[j], name)
            state = old_opt.state.get(p_old)
            if not state:
                continue
            new_opt.state[p_new] = {k: (_fit(v, p_new.shape) if torch.is_tensor(v) and v.shape == p_old.shape
                                        else (v.clone() if torch.is_tensor(v) else v)) for k, v in state.items()}
