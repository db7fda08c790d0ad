"""Optimizer builders: ``build(params, **values) -> torch.optim.Optimizer`` (torch.optim where it has one)."""

from __future__ import annotations

from collections.abc import Iterable

import torch


def build_sgd(params: Iterable, lr: float, momentum: float = 0.0, nesterov: bool = False,
              weight_decay: float = 0.0) -> torch.optim.Optimizer:
    return torch.optim.SGD(params, lr=lr, momentum=momentum, nesterov=nesterov and momentum > 0,
                           weight_decay=weight_decay)


def build_adam(params: Iterable, lr: float, beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8,
               weight_decay: float = 0.0) -> torch.optim.Optimizer:
    return torch.optim.Adam(params, lr=lr, betas=(beta1, beta2), eps=eps, weight_decay=weight_decay)
