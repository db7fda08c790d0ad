"""Edge of stability (Cohen, Kaur, Li, Kolter & Talwalkar 2021, "Gradient Descent on Neural Networks Typically
Occurs at the Edge of Stability", ICLR): full-batch gradient descent and the top Hessian eigenvalue.

On a quadratic, gradient descent with step η is stable only while the sharpness λ_max (the top eigenvalue of the
loss's Hessian) stays below 2/η. Training a network with full-batch GD, the sharpness rises ("progressive
sharpening") until it reaches 2/η, then hovers at or just above it while the loss keeps falling, though not
monotonically. With heavy-ball momentum β the threshold is (2 + 2β)/η (the paper's appendix).

Their set-up (Fig. 1): fc-tanh (two hidden layers of 200 tanh units: the catalog's ``mlp``), the square loss
½‖f(x) − onehot(y)‖² averaged over the samples, a 5,000-image subset of CIFAR-10 with every input feature
centred and scaled to unit variance, as their code does. Here: a seeded subset of a dataset of the registry
(Fashion-MNIST by default), the same network, loss and preprocessing. The sharpness is Lanczos on
Hessian-vector products over the whole training subset (``studio.core.landscape.curvature``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from torch import nn
from torch.nn import functional

from studio.core.demos.common import Emit, Progress, finite_or_none, parse_ints, report, send, torch_threads
from studio.core.demos.training import build_model, load_data
from studio.core.errors import ConfigError
from studio.core.host.devices import pick_device
from studio.core.landscape import curvature
from studio.core.maths.objectives import LossFn

ARRIVED = 0.9  # the sharpness has reached the edge once it is within 10 % of the threshold
BAND = (0.9, 1.2)  # at the edge: from 10 % below the threshold to 20 % above ("at, or just above")


def threshold(lr: float, momentum: float = 0.0) -> float:
    """The stability threshold of (heavy-ball) gradient descent on a quadratic: (2 + 2β)/η (2/η for β = 0)."""
    return (2.0 + 2.0 * momentum) / lr


def standardise(x: torch.Tensor) -> torch.Tensor:
    """Each input feature centred and scaled to unit variance over the samples (Cohen et al.'s preprocessing);
    a feature that hardly varies (std below 0.1 of the data's scale) is only centred and scaled by 0.1."""
    flat = x.reshape(len(x), -1)
    centred = flat - flat.mean(0)
    scale = float(centred.std()) or 1.0
    return (centred / centred.std(0).clamp_min(0.1 * scale)).reshape(x.shape)


def half_squared_error(num_classes: int) -> LossFn:
    """The square loss summed over the batch: Σ ½‖f(x) − onehot(y)‖² (the curvature module divides by n)."""

    def loss(output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        onehot = functional.one_hot(target, num_classes).to(output.dtype)
        return 0.5 * (output.float() - onehot).pow(2).sum()

    return loss


def hessian_matvec(loss: torch.Tensor, params: Sequence[torch.Tensor]) -> tuple[list[torch.Tensor], curvature.MatVec]:
    """(∇L, v ↦ ∇²L·v on flat vectors) at the weights ``loss`` was computed with. The gradient's graph is built
    once and kept, so each Hessian-vector product is one backward pass through it (half the cost of rebuilding
    the graph per product); the gradient comes back detached, for the training step."""
    grads = torch.autograd.grad(loss, params, create_graph=True)
    sizes = [p.numel() for p in params]

    def matvec(vector: torch.Tensor) -> torch.Tensor:
        parts = [v.reshape(p.shape).to(p.dtype) for v, p in zip(torch.split(vector, sizes), params, strict=True)]
        hv = torch.autograd.grad(grads, params, grad_outputs=parts, retain_graph=True)
        return torch.cat([h.reshape(-1) for h in hv]).to(vector.dtype)

    return [g.detach() for g in grads], matvec


def sharpness(model: nn.Module, x: torch.Tensor, y: torch.Tensor, loss_fn: LossFn, iters: int = 20,
              seed: int = 0, start: torch.Tensor | None = None) -> tuple[float, torch.Tensor]:
    """(the top eigenvalue of the Hessian of the mean loss over all of (x, y) at the model's weights, its
    eigenvector), by Lanczos to a relative residual of 1e-3. ``start``: the last measurement's vector: the top
    direction moves little in a few steps, so a warm start needs fewer Hessian-vector products."""
    params = list(model.parameters())
    _, matvec = hessian_matvec(loss_fn(model(x), y) / len(y), params)
    return _top(matvec, sum(p.numel() for p in params), iters, seed, x.device, start)


def _top(matvec: curvature.MatVec, dim: int, iters: int, seed: int, device: torch.device,
         start: torch.Tensor | None) -> tuple[float, torch.Tensor]:
    value, vector = curvature.top_eigenpair(matvec, dim, iters=iters, tol=1e-3, seed=seed, device=device,
                                            start=start)
    return float(value), vector


def phases(steps: list[int], sharp: list[float], limit: float, losses: list[float],
           band: tuple[float, float] = BAND) -> dict[str, Any]:
    """What a run shows: the sharpness at the start over the threshold ``limit``, the step it first came within
    10 % of it, and after that (the edge-of-stability phase) the median ratio, the share of measurements in
    ``band``·limit, how often the loss rose from one step to the next, and how far the loss fell (the median of
    the phase's last quarter over that of its first quarter). ``losses[t]`` is the loss at step t."""
    ratio = [s / limit for s in sharp]
    out: dict[str, Any] = {"start_ratio": finite_or_none(ratio[0]) if ratio else None, "arrived_step": None,
                           "max_ratio": finite_or_none(max(ratio)) if ratio else None, "edge_median_ratio": None,
                           "edge_share_in_band": None, "edge_measurements": 0, "edge_loss_rises": None,
                           "edge_loss_fall": None}
    first = next((i for i, r in enumerate(ratio) if r >= ARRIVED), None)
    if first is None:
        return out
    arrived = steps[first]
    later = np.asarray(ratio[first:], dtype=float)
    in_band = (later >= band[0]) & (later <= band[1])
    edge_losses = np.asarray(losses[arrived:], dtype=float)
    quarter = max(len(edge_losses) // 4, 1)
    fall = float(np.median(edge_losses[-quarter:]) / np.median(edge_losses[:quarter])) if len(edge_losses) else None
    out.update(arrived_step=int(arrived), edge_median_ratio=float(np.median(later)),
               edge_share_in_band=float(in_band.mean()), edge_measurements=int(len(later)),
               edge_loss_rises=int((np.diff(edge_losses) > 0).sum()), edge_loss_fall=finite_or_none(fall))
    return out


def run(dataset: str = "fashion_mnist_small", n_samples: int = 2000, widths: str = "200,200",
        activation: str = "tanh", lr: float = 0.05, momentum: float = 0.0, steps: int = 1000,
        sharpness_every: int = 20, lanczos_iters: int = 20, seed: int = 0, device: str = "auto", threads: int = 1,
        progress: Progress | None = None, emit: Emit | None = None) -> dict[str, Any]:
    """Full-batch GD (heavy-ball momentum β = ``momentum``) on ``n_samples`` training samples, the sharpness every
    ``sharpness_every`` steps. A frame per measurement: step, sharpness, threshold, loss, accuracy and the losses
    of every step since the last frame."""
    if not 0.0 <= momentum < 1.0:
        raise ConfigError(f"momentum β must be in [0, 1); got {momentum}")
    dev = pick_device(device)
    with torch_threads(threads):
        return _train(dataset, n_samples, parse_ints(widths, "widths"), activation, lr, momentum, steps,
                      max(sharpness_every, 1), lanczos_iters, seed, dev, progress, emit)


def _train(dataset: str, n_samples: int, widths: list[int], activation: str, lr: float, momentum: float, steps: int,
           every: int, iters: int, seed: int, dev: torch.device, progress: Progress | None,
           emit: Emit | None) -> dict[str, Any]:
    report(progress, 0.0, f"loading {dataset}")
    data = load_data(dataset, n_samples, 0, seed, dev)
    x, y = standardise(data.train.x), data.train.y
    model = build_model("mlp", data, seed, dev, widths=widths, activation=activation)
    loss_fn = half_squared_error(data.num_classes)
    params = [p for p in model.parameters()]
    dim = sum(p.numel() for p in params)
    velocity = [torch.zeros_like(p) for p in params]
    limit = threshold(lr, momentum)
    curves: dict[str, list[float]] = {"step": [], "sharpness": [], "loss": [], "train_acc": []}
    losses: list[float] = []
    sent = 0  # losses already sent in a frame
    diverged_at = None
    direction = None  # the top eigenvector of the last measurement: the next one starts from it
    for step in range(steps + 1):
        out = model(x)
        loss = loss_fn(out, y) / len(y)
        value = float(loss.detach())
        if not math.isfinite(value) or value > 1e6:
            diverged_at = step
            break
        losses.append(value)
        measure = step % every == 0 or step == steps
        if measure:  # the gradient's graph serves the Hessian-vector products, then the step
            grads, matvec = hessian_matvec(loss, params)
            sharp, direction = _top(matvec, dim, iters, seed + step, x.device, direction)
            del matvec
            acc = float((out.detach().argmax(1) == y).float().mean())
            for key, number in (("step", step), ("sharpness", sharp), ("loss", value), ("train_acc", acc)):
                curves[key].append(float(number))
            send(emit, {"step": step, "sharpness": sharp, "threshold": limit, "loss": value, "train_acc": acc,
                        "loss_from": sent, "losses": losses[sent:]})
            sent = len(losses)
            report(progress, step / max(steps, 1), f"step {step}/{steps}: sharpness {sharp:.1f}, "
                   f"threshold {limit:.1f}, loss {value:.4f}")
        if step == steps:
            break
        if not measure:
            grads = list(torch.autograd.grad(loss, params))
        with torch.no_grad():
            for p, g, v in zip(params, grads, velocity, strict=True):
                v.mul_(momentum).add_(g)  # heavy ball: v ← βv + ∇L, θ ← θ − ηv
                p.sub_(lr * v)
    found = phases([int(s) for s in curves["step"]], curves["sharpness"], limit, losses)
    summary = {"dataset": dataset, "n_samples": len(y), "lr": lr, "momentum": momentum, "threshold": limit,
               "steps": len(losses) - 1, "diverged_at": diverged_at,
               "sharpness_start": finite_or_none(curves["sharpness"][0]) if curves["sharpness"] else None,
               "sharpness_end": finite_or_none(curves["sharpness"][-1]) if curves["sharpness"] else None,
               "loss_start": finite_or_none(losses[0]) if losses else None,
               "loss_end": finite_or_none(losses[-1]) if losses else None,
               "train_acc_end": curves["train_acc"][-1] if curves["train_acc"] else None, **found}
    return {"summary": summary, "curves": {k: np.asarray(v) for k, v in curves.items()},
            "losses": np.asarray(losses)}
