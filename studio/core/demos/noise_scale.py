"""The gradient noise scale B_simple = tr(Σ)/|G|² (McCandlish, Kaplan, Amodei et al. 2018, "An Empirical
Model of Large-Batch Training", appendix A.1), estimated while training from gradients at two batch sizes.

A mini-batch gradient of size B has E|G_B|² = |G|² + tr(Σ)/B. From the squared norms at a small and a big
batch size, both unbiased estimates follow:

    |G|²  ≈ (B_big·|G_big|² − B_small·|G_small|²) / (B_big − B_small)
    tr(Σ) ≈ (|G_small|² − |G_big|²) / (1/B_small − 1/B_big)

Each is averaged (an exponential moving average) before their ratio is taken, as the paper advises. In
training, the big batch is the training batch and the small batches are its equal chunks: one vmapped
pass (``torch.func``) gives every chunk's gradient, their mean is the training gradient.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn
from torch.func import functional_call, grad, vmap

from studio.core.demos.common import Emit, Progress, finite_or_none, parse_ints, report, send
from studio.core.demos.training import Batches, build_model, evaluate, load_data, steps_for
from studio.core.errors import ConfigError
from studio.core.host.devices import pick_device
from studio.core.optim.catalog import OPTIMIZERS


def unbiased_estimates(sq_small: float, sq_big: float, b_small: int, b_big: int) -> tuple[float, float]:
    """(|G|², tr(Σ)) from the squared gradient norms at batch sizes ``b_small`` < ``b_big``."""
    if not b_small < b_big:
        raise ConfigError(f"the small batch ({b_small}) must be smaller than the big batch ({b_big})")
    g2 = (b_big * sq_big - b_small * sq_small) / (b_big - b_small)
    trace = (sq_small - sq_big) / (1 / b_small - 1 / b_big)
    return g2, trace


class NoiseScaleEstimator:
    """Exponential moving averages of the |G|² and tr(Σ) estimates (debiased); B_simple is their ratio."""

    def __init__(self, b_small: int, b_big: int, decay: float = 0.95) -> None:
        if not 0 <= decay < 1:
            raise ConfigError(f"the averaging decay must be in [0, 1); got {decay}")
        self.b_small, self.b_big, self.decay = b_small, b_big, decay
        self._g2 = self._trace = self._norm = 0.0

    def update(self, sq_small: float, sq_big: float) -> float:
        """Add one measurement (``sq_small``: a small-batch squared norm, or the mean of several); returns B_simple."""
        g2, trace = unbiased_estimates(sq_small, sq_big, self.b_small, self.b_big)
        d = self.decay
        self._g2 = d * self._g2 + (1 - d) * g2
        self._trace = d * self._trace + (1 - d) * trace
        self._norm = d * self._norm + (1 - d)
        return self.b_simple

    @property
    def g2(self) -> float:
        return self._g2 / self._norm if self._norm else float("nan")

    @property
    def trace(self) -> float:
        return self._trace / self._norm if self._norm else float("nan")

    @property
    def b_simple(self) -> float:
        g2 = self.g2
        return self.trace / g2 if g2 > 0 else float("inf")


def chunk_gradients(model: nn.Module, x: torch.Tensor, y: torch.Tensor, chunks: int) -> tuple[dict, torch.Tensor]:
    """Gradients of the mean loss of each of ``chunks`` equal parts of (x, y): {name: (chunks, *shape)},
    and the squared norm of each chunk's whole gradient (chunks,)."""
    params = {n: p.detach() for n, p in model.named_parameters()}
    buffers = dict(model.named_buffers())

    def loss(p: dict, xb: torch.Tensor, yb: torch.Tensor) -> torch.Tensor:
        return nn.functional.cross_entropy(functional_call(model, {**buffers, **p}, (xb,)), yb)

    xs = x.reshape(chunks, len(x) // chunks, *x.shape[1:])
    ys = y.reshape(chunks, len(y) // chunks)
    grads = vmap(grad(loss), in_dims=(None, 0, 0))(params, xs, ys)
    sq = sum(g.reshape(chunks, -1).pow(2).sum(1) for g in grads.values())
    return grads, sq


def run(dataset: str = "fashion_mnist_small", widths: str = "128", optimizer: str = "sgd", lr: float = 0.1,
        batch_size: int = 128, small_batch: int = 16, epochs: float = 10.0, train_samples: int = 0,
        decay: float = 0.95, frame_every: int = 2, seed: int = 0, device: str = "auto", threads: int = 0,
        progress: Progress | None = None, emit: Emit | None = None) -> dict[str, Any]:
    """Train an MLP at ``batch_size``, estimating B_simple from its ``small_batch`` chunks every step."""
    if batch_size % small_batch or small_batch >= batch_size:
        raise ConfigError(f"batch_size ({batch_size}) must be a multiple of small_batch ({small_batch}) and larger")
    dev = pick_device(device)
    if threads > 0:
        torch.set_num_threads(threads)
    report(progress, 0.0, f"loading {dataset}")
    data = load_data(dataset, train_samples, 1000, seed, dev)
    if len(data.train) < batch_size:
        raise ConfigError(f"batch_size ({batch_size}) is larger than the training set ({len(data.train)})")
    model = build_model("mlp", data, seed, dev, widths=parse_ints(widths, "widths"))
    opt = OPTIMIZERS.build(optimizer, params=model.parameters(),
                           **OPTIMIZERS.resolve(optimizer, {"lr": lr}, "optimizer"))
    batches = Batches(len(data.train), batch_size, seed + 1, dev)
    total = steps_for(epochs, len(data.train), batch_size)
    chunks = batch_size // small_batch
    est = NoiseScaleEstimator(small_batch, batch_size, decay)
    rows: dict[str, list[float]] = {"step": [], "b_simple": [], "g2": [], "trace": [], "train_loss": []}
    loss_avg = None
    params = dict(model.named_parameters())
    for step in range(1, total + 1):
        idx = batches.next()
        x, y = data.train.x[idx], data.train.y[idx]
        grads, sq = chunk_gradients(model, x, y, chunks)
        big = {n: g.mean(0) for n, g in grads.items()}
        sq_big = float(sum(g.pow(2).sum() for g in big.values()))
        est.update(float(sq.mean()), sq_big)
        for n, p in params.items():
            p.grad = big[n]
        opt.step()
        with torch.no_grad():
            loss = float(nn.functional.cross_entropy(model(x), y))
        loss_avg = loss if loss_avg is None else 0.9 * loss_avg + 0.1 * loss
        if step % frame_every == 0 or step == total:
            row = {"step": step, "b_simple": est.b_simple, "g2": est.g2, "trace": est.trace, "train_loss": loss_avg}
            for k, v in row.items():
                rows[k].append(float(v))
            send(emit, row)
            report(progress, step / total, f"step {step}/{total}, B_simple ≈ {est.b_simple:.0f}")
    _, test_acc = evaluate(model, data.test)
    summary = {"dataset": dataset, "batch_size": batch_size, "small_batch": small_batch, "steps": total,
               "b_simple": finite_or_none(est.b_simple), "g2": finite_or_none(est.g2),
               "trace": finite_or_none(est.trace), "test_acc": test_acc,
               "b_simple_start": finite_or_none(rows["b_simple"][0]) if rows["b_simple"] else None}
    return {"summary": summary, "curves": {k: np.asarray(v) for k, v in rows.items()}}
