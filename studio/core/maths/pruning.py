"""Magnitude pruning (``torch.nn.utils.prune``) and the short fine-tune after it (Han et al. 2015).

The Compression tab's job (``engine/tasks/compression.py``) and the paper check (``core/checks/paper/han_pruning``)
both run these; the job adds loading a run, quantisation, measuring and saving.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import nn
from torch.nn.utils import prune

from studio.core.contracts.compression import ParameterCount
from studio.core.errors import ConfigError

PRUNABLE = (nn.Linear, nn.Conv1d, nn.Conv2d, nn.Conv3d)
RECURRENT = (nn.LSTM, nn.GRU, nn.RNN)
Report = Callable[[float, str], None]


def prunable_weights(model: nn.Module, structured: bool = False) -> list[tuple[nn.Module, str]]:
    """``(module, name)`` of every weight pruning may touch: Linear and convolution weights, and the
    recurrent layers' ``weight_*`` matrices. Structured pruning (whole output neurons/channels) leaves out
    the last layer (its outputs are the classes) and recurrent layers."""
    out: list[tuple[nn.Module, str]] = []
    for module in model.modules():
        if isinstance(module, PRUNABLE):
            out.append((module, "weight"))
        elif isinstance(module, RECURRENT) and not structured:
            out.extend((module, n) for n, _ in module.named_parameters() if n.startswith("weight"))
    if structured and out:
        out = out[:-1]
    return out


def check_amount(amount: float) -> None:
    if not 0.0 <= amount < 1.0:
        raise ConfigError(f"the pruning amount must be from 0 to below 1 (a fraction), not {amount}")


def prune_model(model: nn.Module, amount: float, structured: bool = False) -> None:
    """Magnitude pruning in place, with masks (call ``make_permanent`` to fold them in).

    Unstructured: the ``amount`` fraction of smallest-magnitude weights of the whole network
    (``prune.global_unstructured``, L1). Structured: in each layer, the ``amount`` fraction of output
    neurons/channels with the smallest L2 norm (``prune.ln_structured``; torch has no global version).
    """
    check_amount(amount)
    targets = prunable_weights(model, structured)
    if not targets or amount == 0.0:
        return
    if structured:
        for module, name in targets:
            prune.ln_structured(module, name, amount=amount, n=2, dim=0)
    else:
        prune.global_unstructured(targets, pruning_method=prune.L1Unstructured, amount=amount)


def make_permanent(model: nn.Module) -> None:
    """Fold every pruning mask into its weight (the model is an ordinary model again)."""
    for module in model.modules():
        for name in [h._tensor_name for h in module._forward_pre_hooks.values()
                     if isinstance(h, prune.BasePruningMethod)]:
            prune.remove(module, name)


def sparsity(model: nn.Module) -> ParameterCount:
    """Parameter count, non-zero parameters, and the fraction of zeros among the prunable weights."""
    params = [p for p in model.parameters()]
    total = sum(p.numel() for p in params)
    nonzero = sum(int(torch.count_nonzero(p)) for p in params)
    weights = [getattr(m, n) for m, n in prunable_weights(model)]
    w_total = sum(w.numel() for w in weights)
    w_zero = sum(w.numel() - int(torch.count_nonzero(w)) for w in weights)
    return {"params": total, "nonzero_params": nonzero, "sparsity": w_zero / w_total if w_total else 0.0}


def fine_tune(model: nn.Module, x: torch.Tensor, y: torch.Tensor, steps: int, lr: float, batch: int, seed: int,
              prepare: Callable[[torch.Tensor], torch.Tensor] | None = None, progress: Report | None = None) -> None:
    """``steps`` of Adam at ``lr`` on random batches of ``(x, y)`` (``prepare``: e.g. normalisation of a gathered
    batch). Pruning masks stay applied while it runs, so pruned weights stay zero."""
    if steps <= 0:
        return
    opt = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=lr)
    gen = torch.Generator().manual_seed(seed)
    batch = min(batch, len(y))
    loss_fn = nn.CrossEntropyLoss()
    model.train()
    for step in range(steps):
        idx = torch.randint(0, len(y), (batch,), generator=gen)
        xb = x[idx.to(x.device)]
        xb = prepare(xb) if prepare is not None else xb
        opt.zero_grad(set_to_none=True)
        loss_fn(model(xb), y[idx.to(y.device)]).backward()
        opt.step()
        if progress and step % 10 == 0:
            progress(step / steps, f"fine-tuning {step}/{steps}")
    model.eval()
