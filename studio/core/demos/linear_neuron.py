"""The linear neuron ŷ = w·x + b on the noisy line y = w_gen·(x + ε) + b_gen.

Full-batch gradient descent (the catalog's "gd") and mini-batch SGD (the catalog's "sgd") start from the
same (w, b); their paths are drawn on the exact contour of the mean squared error over (w, b), which is a
quadratic computed in closed form. Gradient descent stops by the convergence check |L_t − L_{t−1}| < tol.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from studio.core.datasets.noisy_line import make_line
from studio.core.demos.common import Emit, Progress, report, single_threaded
from studio.core.errors import ConfigError
from studio.core.optim.catalog import OPTIMIZERS


def mse(theta: torch.Tensor, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return ((theta[0] * x + theta[1] - y) ** 2).mean()


def least_squares(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """The (w, b) that minimise the mean squared error."""
    a = np.stack([x, np.ones_like(x)], axis=1)
    (w, b), *_ = np.linalg.lstsq(a, y, rcond=None)
    return float(w), float(b)


def loss_grid(x: np.ndarray, y: np.ndarray, ws: np.ndarray, bs: np.ndarray) -> np.ndarray:
    """MSE at every (w, b): ``z[i, j]`` for ``bs[i]``, ``ws[j]``, from the sufficient statistics."""
    sxx, sx, sy, sxy, syy = (x * x).mean(), x.mean(), y.mean(), (x * y).mean(), (y * y).mean()
    w, b = np.meshgrid(ws, bs)
    return w * w * sxx + 2 * w * b * sx + b * b - 2 * w * sxy - 2 * b * sy + syy


@single_threaded
def descend(x: torch.Tensor, y: torch.Tensor, optimizer: str, lr: float, steps: int, start: tuple[float, float],
            batch_size: int = 0, tolerance: float = 0.0, seed: int = 0) -> dict[str, Any]:
    """(w, b) path of ``optimizer``: on the whole set (``batch_size`` 0) or on shuffled mini-batches.

    With ``tolerance`` > 0 the run stops once the full-batch loss changes by less than it (the path then
    stays at its last point). Returns ``path`` (steps+1, 2), ``loss`` (full-batch loss at each point),
    ``stopped_at`` (None if the check never fired).
    """
    theta = torch.tensor(start, dtype=torch.float64, requires_grad=True)
    opt = OPTIMIZERS.build(optimizer, params=[theta], **OPTIMIZERS.resolve(optimizer, {"lr": lr}, "optimizer"))
    gen = torch.Generator().manual_seed(seed)
    n = len(y)
    order, cursor = torch.randperm(n, generator=gen), 0
    path, losses = [list(start)], [float(mse(theta.detach(), x, y))]
    stopped_at = None
    for t in range(1, steps + 1):
        if stopped_at is None:
            if batch_size and batch_size < n:
                if cursor + batch_size > n:
                    order, cursor = torch.randperm(n, generator=gen), 0
                idx = order[cursor:cursor + batch_size]
                cursor += batch_size
                xb, yb = x[idx], y[idx]
            else:
                xb, yb = x, y
            opt.zero_grad()
            mse(theta, xb, yb).backward()
            opt.step()
        with torch.no_grad():
            value = float(mse(theta, x, y))
        if tolerance > 0 and stopped_at is None and abs(value - losses[-1]) < tolerance:
            stopped_at = t
        path.append(theta.detach().tolist())
        losses.append(value)
    return {"path": np.asarray(path), "loss": np.asarray(losses), "stopped_at": stopped_at}


def path_variance(path: np.ndarray, center: tuple[float, float], burn_in: float = 0.5) -> float:
    """Mean squared distance of the path's later points (after ``burn_in`` of it) from ``center``."""
    tail = path[int(len(path) * burn_in):]
    return float(((tail - np.asarray(center)) ** 2).sum(axis=1).mean())


@single_threaded
def run(n_samples: int = 200, w_gen: float = 2.0, b_gen: float = -1.0, noise: float = 0.3, lr: float = 0.3,
        batch_size: int = 4, steps: int = 200, tolerance: float = 1e-6, start_w: float = -2.0,
        start_b: float = 2.0, seed: int = 0, progress: Progress | None = None,
        emit: Emit | None = None) -> dict[str, Any]:
    """GD and SGD on the noisy line; paths on the (w, b) loss contour."""
    if batch_size < 1:
        raise ConfigError("batch_size must be at least 1")
    gen = torch.Generator().manual_seed(seed)
    x, y = make_line(n_samples, w_gen, b_gen, noise, gen)
    x, y = x.double().flatten(), y.double().flatten()
    report(progress, 0.1, "full-batch gradient descent")
    start = (start_w, start_b)
    gd = descend(x, y, "gd", lr, steps, start, tolerance=tolerance)
    report(progress, 0.5, "mini-batch SGD")
    sgd = descend(x, y, "sgd", lr, steps, start, batch_size=batch_size, seed=seed)
    xn, yn = x.numpy(), y.numpy()
    w_star, b_star = least_squares(xn, yn)
    pts = np.vstack([gd["path"], sgd["path"], [[w_star, b_star], list(start)]])
    pts = pts[np.isfinite(pts).all(axis=1)]
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    pad = np.maximum((hi - lo) * 0.15, 0.5)
    ws = np.linspace(lo[0] - pad[0], hi[0] + pad[0], 120)
    bs = np.linspace(lo[1] - pad[1], hi[1] + pad[1], 120)
    z = loss_grid(xn, yn, ws, bs)
    zmin = float(loss_grid(xn, yn, np.array([w_star]), np.array([b_star]))[0, 0])
    levels = zmin + np.geomspace(max((z.max() - zmin) * 1e-3, 1e-9), z.max() - zmin, 16)
    summary = {
        "w_gen": w_gen, "b_gen": b_gen, "least_squares": {"w": w_star, "b": b_star, "loss": zmin},
        "gd": {"w": float(gd["path"][-1, 0]), "b": float(gd["path"][-1, 1]), "loss": float(gd["loss"][-1]),
               "converged_at": gd["stopped_at"]},
        "sgd": {"batch_size": batch_size, "w": float(sgd["path"][-1, 0]), "b": float(sgd["path"][-1, 1]),
                "loss": float(sgd["loss"][-1]), "path_variance": path_variance(sgd["path"], (w_star, b_star))},
        "lr": lr, "steps": steps,
    }
    report(progress, 1.0, "done")
    return {"summary": summary, "x": xn, "y": yn, "grid": {"x": ws, "y": bs, "z": z, "levels": levels},
            "paths": np.stack([gd["path"], sgd["path"]]), "losses": np.stack([gd["loss"], sgd["loss"]]),
            "labels": ["full-batch GD", f"SGD, batch {batch_size}"], "optimum": (w_star, b_star),
            "stopped_at": gd["stopped_at"]}
