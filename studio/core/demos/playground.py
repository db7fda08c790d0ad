"""The classification playground (after TensorFlow Playground): an MLP on 2-D points, its decision
boundary as a heat map while it trains, train and test loss.

The points come from ``studio.core.datasets.synthetic.make_points``; the model is the catalog's "mlp" and
the optimizer a catalog one. Every ``frame_every`` steps a frame holds P(class 1) on a grid over the
points and the train/test loss and accuracy.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

from studio.core.datasets.synthetic import make_points
from studio.core.demos.common import Emit, Progress, parse_ints, report, send, single_threaded
from studio.core.errors import ConfigError
from studio.core.models.catalog import MODELS
from studio.core.optim.catalog import OPTIMIZERS

DATASETS = ("spiral", "moons", "circles", "xor", "gaussian")


def make_split(dataset: str, n_samples: int, noise: float, train_ratio: float,
               seed: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """(x_train, y_train, x_test, y_test): ``n_samples`` points, ``train_ratio`` of them for training."""
    if not 0.05 <= train_ratio <= 0.95:
        raise ConfigError(f"train_ratio must be between 0.05 and 0.95; got {train_ratio}")
    gen = torch.Generator().manual_seed(seed)
    x, y = make_points(dataset, n_samples, noise, gen)
    perm = torch.randperm(n_samples, generator=gen)
    cut = max(2, int(round(n_samples * train_ratio)))
    return x[perm[:cut]], y[perm[:cut]], x[perm[cut:]], y[perm[cut:]]


def grid_box(x: np.ndarray, pad: float = 0.25) -> tuple[float, float, float, float]:
    lo, hi = x.min(axis=0), x.max(axis=0)
    margin = (hi - lo) * pad / 2 + 0.1
    return float(lo[0] - margin[0]), float(hi[0] + margin[0]), float(lo[1] - margin[1]), float(hi[1] + margin[1])


def boundary_grid(model: nn.Module, box: tuple[float, float, float, float],
                  resolution: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(xs, ys, p) with ``p[i, j]`` = P(class 1) at (xs[j], ys[i])."""
    xs, ys = np.linspace(box[0], box[1], resolution), np.linspace(box[2], box[3], resolution)
    gx, gy = np.meshgrid(xs, ys)
    pts = torch.from_numpy(np.stack([gx.ravel(), gy.ravel()], axis=1)).float()
    was = model.training
    model.eval()
    with torch.no_grad():
        p = torch.softmax(model(pts), dim=1)[:, 1].numpy().reshape(resolution, resolution)
    model.train(was)
    return xs, ys, p


def classify_with_grid(xs: np.ndarray, ys: np.ndarray, p: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Labels of ``points`` read off the decision-boundary grid (the nearest grid cell's P(class 1) > ½)."""
    j = np.clip(np.rint((points[:, 0] - xs[0]) / (xs[1] - xs[0])).astype(int), 0, len(xs) - 1)
    i = np.clip(np.rint((points[:, 1] - ys[0]) / (ys[1] - ys[0])).astype(int), 0, len(ys) - 1)
    return (p[i, j] > 0.5).astype(int)


def _measure(model: nn.Module, x: torch.Tensor, y: torch.Tensor) -> tuple[float, float]:
    was = model.training
    model.eval()
    with torch.no_grad():
        out = model(x)
        loss = float(nn.functional.cross_entropy(out, y))
        acc = float((out.argmax(1) == y).float().mean())
    model.train(was)
    return loss, acc


@single_threaded
def run(dataset: str = "spiral", noise: float = 0.1, n_samples: int = 400, train_ratio: float = 0.5,
        widths: str = "16,16", activation: str = "tanh", dropout: float = 0.0, weight_decay: float = 0.0,
        optimizer: str = "adam", lr: float = 0.03, batch_size: int = 16, steps: int = 1500,
        frame_every: int = 25, resolution: int = 64, seed: int = 0, progress: Progress | None = None,
        emit: Emit | None = None) -> dict[str, Any]:
    """Train an MLP on 2-D points; frames of the decision boundary and the loss curves."""
    if dataset not in DATASETS:
        raise ConfigError(f"unknown point dataset {dataset!r}; choose one of {', '.join(DATASETS)}")
    torch.manual_seed(seed)
    xtr, ytr, xte, yte = make_split(dataset, n_samples, noise, train_ratio, seed)
    model = MODELS.build("mlp", input_shape=(2,), num_classes=2, widths=parse_ints(widths, "widths"),
                         activation=activation, dropout=dropout)
    values = OPTIMIZERS.resolve(optimizer, {"lr": lr, "weight_decay": weight_decay}, "optimizer")
    opt = OPTIMIZERS.build(optimizer, params=model.parameters(), **values)
    box = grid_box(torch.cat([xtr, xte]).numpy())
    gen = torch.Generator().manual_seed(seed + 1)
    n = len(ytr)
    batch = n if batch_size <= 0 or batch_size >= n else batch_size
    order, cursor = torch.randperm(n, generator=gen), 0
    frames: list[dict[str, Any]] = []

    def snapshot(step: int) -> None:
        xs, ys, p = boundary_grid(model, box, resolution)
        (trl, tra), (tel, tea) = _measure(model, xtr, ytr), _measure(model, xte, yte)
        frame = {"step": step, "p": p.astype(np.float32), "train_loss": trl, "train_acc": tra,
                 "test_loss": tel, "test_acc": tea}
        frames.append(frame)
        send(emit, frame)

    send(emit, {"setup": {"x_train": xtr.numpy(), "y_train": ytr.numpy(), "x_test": xte.numpy(),
                          "y_test": yte.numpy(), "box": box}})  # the points, before any frame
    snapshot(0)
    for step in range(1, steps + 1):
        if cursor + batch > n:
            order, cursor = torch.randperm(n, generator=gen), 0
        idx = order[cursor:cursor + batch]
        cursor += batch
        opt.zero_grad()
        nn.functional.cross_entropy(model(xtr[idx]), ytr[idx]).backward()
        opt.step()
        if step % frame_every == 0 or step == steps:
            snapshot(step)
            report(progress, step / steps, f"step {step}/{steps}")
    xs, ys, p = boundary_grid(model, box, resolution)
    last = frames[-1]
    summary = {"dataset": dataset, "steps": steps, "train_loss": last["train_loss"], "test_loss": last["test_loss"],
               "train_acc": last["train_acc"], "test_acc": last["test_acc"],
               "grid_test_acc": float((classify_with_grid(xs, ys, p, xte.numpy()) == yte.numpy()).mean())}
    return {"summary": summary, "x_train": xtr.numpy(), "y_train": ytr.numpy(), "x_test": xte.numpy(),
            "y_test": yte.numpy(), "box": box, "xs": xs, "ys": ys, "frames": frames}
