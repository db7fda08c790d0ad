"""Loss and accuracy at many points ``θ = base + Σ_i c_i d_i`` of weight space: 1-D lines, 2-D grids.

Two evaluators give the same numbers:

- :func:`evaluate_sequential`, the reference (what the papers' code does): set the weights of a copy of
  the model, run the data through it, once per point.
- :func:`evaluate_fast`: many points per pass. Each speed trick is named and switchable:
  1. ``torch.func.functional_call`` + ``torch.vmap`` over the coefficients: a chunk of points becomes one
     batched computation (stacked parameter sets built inside vmap), chunk and data-batch sizes picked to
     fit a memory budget;
  2. parameters every direction leaves at zero (biases and BatchNorm under filter normalisation) stay
     unbatched;
  3. ``affine_first_layer``: the first weighted layer of an ``nn.Sequential`` (Linear/Conv after
     parameter-free modules) is linear in its weights, so its output at every point is
     ``A(W₀) + Σ c_i A(D_i)``: computed K+1 times per data batch instead of once per point (exact);
  4. the evaluation data stays on the device; ``torch.inference_mode``; bf16 autocast (on by default on
     CUDA; on the CPU only when asked, where it is slower but lets the tests run the GPU's code path).

The model is evaluated in eval mode: BatchNorm uses the running statistics of the loaded checkpoint.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from torch import nn
from torch.func import functional_call, vmap

from studio.core.landscape.directions import Params
from studio.core.maths.objectives import LossFn, correct_count, cross_entropy_sum

Progress = Callable[[int, int], None]  # (done, total); may raise to cancel

CPU_BUDGET = 64 * 2**20  # bytes of activations per chunk on the CPU: about what stays in cache
GPU_FRACTION = 0.25  # of the free GPU memory
CPU_DATA_BATCH = 512


def _point_params(base: Params, directions: list[Params], c: torch.Tensor) -> Params:
    return {name: base[name] + sum(c[i] * d[name] for i, d in enumerate(directions)) for name in base}


# --- the reference ------------------------------------------------------------------------------
def evaluate_sequential(model: nn.Module, base: Params, directions: list[Params], coeffs: torch.Tensor,
                        x: torch.Tensor, y: torch.Tensor, loss_fn: LossFn = cross_entropy_sum,
                        correct_fn: LossFn | None = correct_count, batch_size: int = 1024,
                        progress: Progress | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Mean loss and accuracy at each row of ``coeffs`` (P, K): set the weights, run the data, repeat."""
    net = copy.deepcopy(model).eval()
    weights = dict(net.named_parameters())
    coeffs = coeffs.detach().to("cpu", torch.float64)
    losses, accs = np.zeros(len(coeffs)), np.full(len(coeffs), np.nan)
    with torch.no_grad():
        for i, c in enumerate(coeffs):
            for name, value in _point_params(base, directions, c.tolist()).items():
                weights[name].copy_(value)
            loss, correct = 0.0, 0.0
            for start in range(0, len(y), batch_size):
                out = net(x[start:start + batch_size])
                loss += float(loss_fn(out, y[start:start + batch_size]))
                if correct_fn is not None:
                    correct += float(correct_fn(out, y[start:start + batch_size]))
            losses[i] = loss / len(y)
            if correct_fn is not None:
                accs[i] = correct / len(y)
            if progress:
                progress(i + 1, len(coeffs))
    return losses, accs


# --- the fast evaluator -------------------------------------------------------------------------
AFFINE = (nn.Linear, nn.Conv1d, nn.Conv2d, nn.Conv3d)


def affine_split(model: nn.Module) -> tuple[nn.Module, str, nn.Module, nn.Module] | None:
    """(prefix, name, first layer, rest) when ``model`` is an ``nn.Sequential`` whose first weighted
    module is a Linear/Conv preceded only by modules without parameters or buffers; else None."""
    if not isinstance(model, nn.Sequential):
        return None
    for i, (name, module) in enumerate(model.named_children()):
        if not any(True for _ in module.parameters()) and not any(True for _ in module.buffers()):
            continue
        if type(module) in AFFINE and i + 1 < len(model):
            return model[:i], name, module, model[i + 1:]
        return None
    return None


def _activation_bytes(module: nn.Module, inputs: torch.Tensor) -> int:
    """Bytes of every leaf module's output for ``inputs`` (a small batch), measured with hooks."""
    total = [inputs.numel() * 4]

    def hook(_m: nn.Module, _i: tuple, out: object) -> None:
        if isinstance(out, torch.Tensor):
            total[0] += out.numel() * 4

    leaves = [m for m in module.modules() if not any(True for _ in m.children())]
    handles = [m.register_forward_hook(hook) for m in leaves]
    try:
        module(inputs)
    finally:
        for h in handles:
            h.remove()
    return total[0]


def _budget(device: torch.device, memory_bytes: int | None) -> int:
    if memory_bytes:
        return memory_bytes
    if device.type == "cuda":
        free, _ = torch.cuda.mem_get_info(device)
        return int(free * GPU_FRACTION)
    return CPU_BUDGET


def evaluate_fast(model: nn.Module, base: Params, directions: list[Params], coeffs: torch.Tensor,
                  x: torch.Tensor, y: torch.Tensor, loss_fn: LossFn = cross_entropy_sum,
                  correct_fn: LossFn | None = correct_count, memory_bytes: int | None = None,
                  bf16: bool | None = None, affine_first_layer: bool = True, chunk: int | None = None,
                  data_batch: int | None = None, progress: Progress | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Mean loss and accuracy at each row of ``coeffs`` (P, K), many points per pass (see the module doc).

    ``chunk``/``data_batch`` override the sizes picked from ``memory_bytes`` (default: 64 MiB on the
    CPU, a quarter of the free memory on a GPU). ``bf16`` (autocast to bfloat16; losses are still summed
    in float32/float64) defaults to True on CUDA and False elsewhere.
    """
    device = x.device
    bf16 = device.type == "cuda" if bf16 is None else bf16
    was_training = model.training
    model.eval()
    try:
        with torch.inference_mode():
            return _evaluate_fast(model, base, directions, coeffs, x, y, loss_fn, correct_fn,
                                  _budget(device, memory_bytes), bf16, affine_first_layer, chunk, data_batch,
                                  progress)
    finally:
        model.train(was_training)


def _evaluate_fast(model, base, directions, coeffs, x, y, loss_fn, correct_fn, budget, bf16, affine,
                   chunk, data_batch, progress):  # noqa: ANN001, ANN202 - the body of evaluate_fast
    device = x.device
    n_points, n = len(coeffs), len(y)
    # θ(c) = [1, c] · [θ₀, d₁, …, d_K]: one product builds a chunk of parameter sets (and of first-layer outputs)
    coef = torch.cat([torch.ones(n_points, 1), coeffs.detach().float().cpu()], dim=1).to(device)
    moving = [name for name in base if any(bool(d[name].any()) for d in directions)]
    basis = {name: torch.stack([base[name]] + [d[name] for d in directions]) for name in moving}  # (K+1, *shape)
    fixed: Params = {name: t for name, t in base.items() if name not in basis}
    fixed.update(dict(model.named_buffers()))

    split = affine_split(model) if affine else None
    network = split[3] if split is not None else model
    first_keys = {f"{split[1]}.{k}": k for k, _ in split[2].named_parameters()} if split is not None else {}
    rest_moving = [name for name in moving if name not in first_keys]
    own = {name for name, _ in network.named_parameters()} | {name for name, _ in network.named_buffers()}
    fixed = {name: t for name, t in fixed.items() if name in own}
    autocast = torch.autocast(device.type if device.type in ("cuda", "cpu") else "cpu", dtype=torch.bfloat16,
                              enabled=bf16 and device.type in ("cuda", "cpu"))

    def inputs(xb: torch.Tensor) -> torch.Tensor:
        """What ``network`` sees, as a (K+1, B, ...) basis to combine, or (1, B, ...) when it is the same at
        every point: the input itself, or the output of a first layer that no direction moves."""
        if split is None:
            return xb.unsqueeze(0)
        prefix, _, first, _ = split
        z = prefix(xb)
        if not any(name in basis for name in first_keys):
            return functional_call(first, {k: base[name] for name, k in first_keys.items()}, (z,)).unsqueeze(0)
        return torch.stack([
            functional_call(first, {k: basis[name][i] if name in basis else base[name] * (i == 0)
                                    for name, k in first_keys.items()}, (z,))
            for i in range(len(directions) + 1)
        ])

    # sizes from the measured activation footprint of one sample
    with autocast:
        probe = inputs(x[:2])[0]
        act = max(1, _activation_bytes(network, probe) // len(probe))
    param_bytes = sum(basis[name][0].numel() * 4 for name in rest_moving)
    if data_batch is None:
        cap = n if device.type == "cuda" else CPU_DATA_BATCH
        data_batch = max(1, min(n, cap, budget // act))
    if chunk is None:
        chunk = max(1, min(n_points, budget // (data_batch * act + param_bytes)))
    batches = [(x[i:i + data_batch], y[i:i + data_batch]) for i in range(0, n, data_batch)]
    cached = None
    if (len(directions) + 1) * n * probe[0].numel() * 4 <= budget:  # first-layer outputs computed once
        with autocast:
            cached = [inputs(xb) for xb, _ in batches]

    def point(params: Params, c: torch.Tensor, hs: torch.Tensor, yb: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = hs[0] if len(hs) == 1 else torch.tensordot(c.to(hs.dtype), hs, dims=1)
        out = functional_call(network, {**fixed, **params}, (h,))
        ok = correct_fn(out, yb) if correct_fn is not None else out.new_zeros(())
        return loss_fn(out, yb), ok

    batched = vmap(point, in_dims=(0, 0, None, None))
    loss_sums = torch.zeros(n_points, dtype=torch.float64, device=device)
    correct = torch.zeros(n_points, dtype=torch.float64, device=device)
    total_units, done = len(batches) * math.ceil(n_points / chunk), 0
    for lo in range(0, n_points, chunk):
        c = coef[lo:lo + chunk]
        params = {name: torch.tensordot(c, basis[name], dims=1) for name in rest_moving}  # (C, *shape), fp32
        for b, (xb, yb) in enumerate(batches):
            with autocast:
                hs = cached[b] if cached is not None else inputs(xb)
                losses, oks = batched(params, c, hs, yb)
            loss_sums[lo:lo + chunk] += losses.double()
            correct[lo:lo + chunk] += oks.double()
            done += 1
            if progress:
                progress(done, total_units)
    loss = (loss_sums / n).cpu().numpy()
    acc = (correct / n).cpu().numpy() if correct_fn is not None else np.full(n_points, np.nan)
    return loss, acc


# --- lines and grids ----------------------------------------------------------------------------
def evaluate(model: nn.Module, base: Params, directions: list[Params], coeffs: torch.Tensor, x: torch.Tensor,
             y: torch.Tensor, fast: bool = True, **kwargs: Any) -> tuple[np.ndarray, np.ndarray]:
    """Dispatch to the fast or the sequential evaluator."""
    fn = evaluate_fast if fast else evaluate_sequential
    return fn(model, base, directions, coeffs, x, y, **kwargs)


def grid_coefficients(xs: np.ndarray, ys: np.ndarray) -> torch.Tensor:
    """(len(ys)·len(xs), 2) coefficients in row-major order: row = y, column = x."""
    gx, gy = np.meshgrid(np.asarray(xs, dtype=np.float64), np.asarray(ys, dtype=np.float64))
    return torch.from_numpy(np.stack([gx.ravel(), gy.ravel()], axis=1)).float()


def surface_2d(model: nn.Module, center: Params, d1: Params, d2: Params, x: torch.Tensor, y: torch.Tensor,
               xs: np.ndarray, ys: np.ndarray, fast: bool = True, **kwargs: object) -> dict[str, np.ndarray]:
    """Loss and accuracy on the grid ``center + a·d1 + b·d2``; arrays shaped (len(ys), len(xs))."""
    loss, acc = evaluate(model, center, [d1, d2], grid_coefficients(xs, ys), x, y, fast=fast, **kwargs)
    shape = (len(ys), len(xs))
    return {"loss": loss.reshape(shape), "acc": acc.reshape(shape)}


def interpolate_1d(model: nn.Module, start: Params, end: Params, x: torch.Tensor, y: torch.Tensor,
                   alphas: np.ndarray, fast: bool = True, **kwargs: object) -> dict[str, np.ndarray]:
    """Loss and accuracy along ``(1-α)·start + α·end`` (Goodfellow et al. 2015; Keskar et al. 2017)."""
    direction = {name: end[name] - start[name] for name in start}
    coeffs = torch.as_tensor(np.asarray(alphas, dtype=np.float64)).float().reshape(-1, 1)
    loss, acc = evaluate(model, start, [direction], coeffs, x, y, fast=fast, **kwargs)
    return {"loss": loss, "acc": acc}


def default_grid(resolution: int = 41, span: float = 1.0) -> np.ndarray:
    return np.linspace(-span, span, resolution)


def default_alphas(resolution: int = 41) -> np.ndarray:
    return np.linspace(-0.5, 1.5, resolution)
