"""Optimizer builders: ``build(params, **values) -> torch.optim.Optimizer``.

``params`` is what torch.optim takes: tensors, or parameter groups (dicts) whose own "lr" overrides
the entry's (transfer learning gives its frozen base a lower rate that way). torch.optim is used
wherever it has the algorithm; the others live in ``custom.py``.

Adam, AMSGrad and AdamW take torch's fused kernel (one kernel for every parameter's update, on the CPU as on CUDA)
whenever every parameter is a floating-point tensor on a device that has it: the same algorithm, ×2.8 faster for
Adam's step of the default MLP on the CPU (docs/developer/benchmarks.md, "The loop"), equal to the per-tensor loop
to float rounding; Hugging Face's Trainer made the fused AdamW its default the same way. SGD and Adagrad keep the
per-tensor loop: they take sparse gradients (an ``nn.Embedding(sparse=True)`` in a user's model), which their
fused kernels refuse only at the first step, and the gain is smaller (SGD with momentum 0.18 → 0.11 ms a step).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import torch

from studio.core.errors import ConfigError
from studio.core.optim.custom import Lamb, Lars, Lookahead, MomentumLrInside, Newton
from studio.core.optim.low_precision import LowPrecisionAdam

FUSED_DEVICES = ("cpu", "cuda")


def fused_kwargs(params: Iterable) -> tuple[list, dict[str, bool]]:
    """(``params`` as a list, each group's own ``params`` a list too, and ``{"fused": True}`` when torch's fused
    kernel takes every parameter, else ``{}``): a generator is read once, so it is listed before it is looked at."""
    items: list = []
    tensors: list[torch.Tensor] = []
    for item in params:
        if isinstance(item, dict):
            own = [item["params"]] if isinstance(item["params"], torch.Tensor) else list(item["params"])
            items.append({**item, "params": own})
            tensors += own
        else:
            items.append(item)
            tensors.append(item)
    ok = bool(tensors) and all(isinstance(t, torch.Tensor) and t.device.type in FUSED_DEVICES
                               and t.is_floating_point() for t in tensors)
    return items, ({"fused": True} if ok else {})


def build_gd(params: Iterable, lr: float, weight_decay: float = 0.0, tolerance: float = 0.0) -> torch.optim.Optimizer:
    """Full-batch gradient descent: torch.optim.SGD; the trainer feeds it the whole training set
    (the entry's "full_batch" tag) and stops when the loss changes by less than ``tolerance``."""
    return torch.optim.SGD(params, lr=lr, weight_decay=weight_decay)


def build_sgd(params: Iterable, lr: float, momentum: float = 0.0, nesterov: bool = False,
              weight_decay: float = 0.0) -> torch.optim.Optimizer:
    return torch.optim.SGD(params, lr=lr, momentum=momentum, nesterov=nesterov and momentum > 0,
                           weight_decay=weight_decay)


def build_momentum(params: Iterable, lr: float, momentum: float = 0.9,
                   weight_decay: float = 0.0) -> torch.optim.Optimizer:
    return torch.optim.SGD(params, lr=lr, momentum=momentum, weight_decay=weight_decay)


def build_momentum_lr_inside(params: Iterable, lr: float, momentum: float = 0.9,
                             weight_decay: float = 0.0) -> torch.optim.Optimizer:
    return MomentumLrInside(params, lr=lr, momentum=momentum, weight_decay=weight_decay)


def build_nesterov(params: Iterable, lr: float, momentum: float = 0.9,
                   weight_decay: float = 0.0) -> torch.optim.Optimizer:
    return torch.optim.SGD(params, lr=lr, momentum=momentum, nesterov=True, weight_decay=weight_decay)


def build_adagrad(params: Iterable, lr: float, eps: float = 1e-10, initial_accumulator: float = 0.0,
                  weight_decay: float = 0.0) -> torch.optim.Optimizer:
    return torch.optim.Adagrad(params, lr=lr, eps=eps, initial_accumulator_value=initial_accumulator,
                               weight_decay=weight_decay)


def build_rmsprop(params: Iterable, lr: float, alpha: float = 0.99, eps: float = 1e-8, momentum: float = 0.0,
                  centered: bool = False, weight_decay: float = 0.0) -> torch.optim.Optimizer:
    return torch.optim.RMSprop(params, lr=lr, alpha=alpha, eps=eps, momentum=momentum, centered=centered,
                               weight_decay=weight_decay)


def build_adam(params: Iterable, lr: float, beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8,
               weight_decay: float = 0.0, state_dtype: str = "fp32") -> torch.optim.Optimizer:
    if state_dtype != "fp32":  # moments in bfloat16 (Zhai et al. 2022): torch's Adam keeps the weights' dtype
        return LowPrecisionAdam(params, lr=lr, betas=(beta1, beta2), eps=eps, weight_decay=weight_decay,
                                state_dtype=state_dtype)
    params, fused = fused_kwargs(params)
    return torch.optim.Adam(params, lr=lr, betas=(beta1, beta2), eps=eps, weight_decay=weight_decay, **fused)


def build_amsgrad(params: Iterable, lr: float, beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8,
                  weight_decay: float = 0.0) -> torch.optim.Optimizer:
    params, fused = fused_kwargs(params)
    return torch.optim.Adam(params, lr=lr, betas=(beta1, beta2), eps=eps, weight_decay=weight_decay, amsgrad=True,
                            **fused)


def build_adamw(params: Iterable, lr: float, beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8,
                weight_decay: float = 0.01, state_dtype: str = "fp32") -> torch.optim.Optimizer:
    if state_dtype != "fp32":
        return LowPrecisionAdam(params, lr=lr, betas=(beta1, beta2), eps=eps, weight_decay=weight_decay,
                                decoupled=True, state_dtype=state_dtype)
    params, fused = fused_kwargs(params)
    return torch.optim.AdamW(params, lr=lr, betas=(beta1, beta2), eps=eps, weight_decay=weight_decay, **fused)


def build_nadam(params: Iterable, lr: float, beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8,
                momentum_decay: float = 4e-3, weight_decay: float = 0.0) -> torch.optim.Optimizer:
    return torch.optim.NAdam(params, lr=lr, betas=(beta1, beta2), eps=eps, momentum_decay=momentum_decay,
                             weight_decay=weight_decay)


def build_lamb(params: Iterable, lr: float, beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-6,
               weight_decay: float = 0.0) -> torch.optim.Optimizer:
    return Lamb(params, lr=lr, betas=(beta1, beta2), eps=eps, weight_decay=weight_decay)


def build_lars(params: Iterable, lr: float, momentum: float = 0.9, weight_decay: float = 0.0,
               trust_coefficient: float = 0.02) -> torch.optim.Optimizer:
    return Lars(params, lr=lr, momentum=momentum, weight_decay=weight_decay, trust_coefficient=trust_coefficient)


def build_newton(params: Iterable, lr: float = 1.0, damping: float = 0.0, max_params: int = 2000,
                 tolerance: float = 0.0) -> torch.optim.Optimizer:
    return Newton(params, lr=lr, damping=damping, max_params=max_params)


def build_lookahead(params: Iterable, inner: str, lr: float, k: int = 5, alpha: float = 0.5,
                    inner_options: str = "") -> torch.optim.Optimizer:
    """Lookahead around the optimizer named ``inner``, built with ``lr`` and ``inner_options``
    ("key=value, key=value", checked against that optimizer's parameters)."""
    from studio.core.optim.catalog import OPTIMIZERS

    if inner == "lookahead":
        raise ConfigError("optimizer.inner cannot be lookahead itself; pick the optimizer Lookahead wraps")
    values: dict[str, Any] = {**parse_options(inner_options, "optimizer.inner_options"), "lr": lr}
    resolved = OPTIMIZERS.resolve(inner, values, "optimizer.inner_options")
    return Lookahead(OPTIMIZERS.build(inner, params=params, **resolved), k=k, alpha=alpha)


def parse_options(text: str, where: str) -> dict[str, str]:
    """"momentum=0.9, nesterov=true" → {"momentum": "0.9", "nesterov": "true"} (values coerced later)."""
    out: dict[str, str] = {}
    for item in (part.strip() for part in text.replace(";", ",").split(",")):
        if not item:
            continue
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"{where} takes key=value pairs separated by commas, e.g. momentum=0.9; got {item!r}")
        out[key.strip()] = value.strip()
    return out
