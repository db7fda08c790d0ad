"""The training the two precision checks share (bf16 mixed precision, int8 quantisation): the catalog MLP on the
bundled Fashion-MNIST subset, Adam, one seed per run; the forward pass and loss under ``torch.autocast`` as the
training loop's ``engine/loop/precision.py`` runs them. Torch-free at import (the catalog imports every module)."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from torch import nn

    from studio.core.demos.training import Data

WIDTHS = (128, 128)
LR = 1e-4  # small enough that an update is below a bf16 weight's resolution (2⁻⁸ of it) for most weights
BATCH = 64


def data(train_samples: int = 0) -> Data:
    """The bundled Fashion-MNIST subset (all 10,000 training and 2,000 test images when 0), normalised."""
    from studio.core.demos.training import load_data

    return load_data("fashion_mnist_small", train_samples=train_samples, seed=0)


def train(data: Data, seed: int, epochs: int, precision: str = "fp32", master_weights: bool = True) -> nn.Module:
    """The MLP trained ``epochs`` epochs at ``precision`` (fp32 or bf16 autocast) from ``seed``; the same start
    and batches for every precision. ``master_weights=False`` (a broken set-up): the weights and Adam's state
    themselves bf16, so updates smaller than a weight's resolution are lost (Micikevicius et al. 2018, §3.1)."""
    import torch
    from torch import nn

    from studio.core.demos.training import Batches, build_model

    model = build_model("mlp", data, seed, widths=list(WIDTHS))
    pure = precision == "bf16" and not master_weights
    if pure:
        model = model.to(torch.bfloat16)
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    batches = Batches(len(data.train), BATCH, seed + 1)
    model.train()
    for _ in range(epochs * batches.per_epoch):
        idx = batches.next()
        x = data.train.x[idx]
        with _autocast(precision):
            out = model(x.to(torch.bfloat16) if pure else x)
        loss = nn.functional.cross_entropy(out.float(), data.train.y[idx])  # the loss in float32, as the loop's
        opt.zero_grad()
        loss.backward()
        opt.step()
    return model.float().eval()


def accuracy(model: nn.Module, data: Data) -> float:
    """Test accuracy (0 … 1) on the 2,000 test images."""
    from studio.core.demos.training import evaluate

    return evaluate(model, data.test)[1]


def _autocast(precision: str) -> Any:
    import torch

    if precision == "fp32":
        return contextlib.nullcontext()
    return torch.autocast("cpu", dtype=torch.bfloat16)
