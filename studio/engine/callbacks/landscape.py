"""Live landscapes during training: a 2-D snapshot every N epochs, the top Hessian eigenvalue as a curve.

Both run on rank 0 between epochs (the other ranks wait at their next collective), on a fixed, seeded
subset of the training data, with the model in eval mode (BatchNorm on its running statistics) and
restored afterwards. Snapshots use the same random seed every time, so successive frames share their
directions (re-normalised to the current filters) and a class can watch the basin form.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import torch

from studio.core.contracts import protocol
from studio.core.landscape import curvature, io
from studio.core.landscape.directions import normalized_directions, parameters_of
from studio.core.landscape.io import Landscape
from studio.core.landscape.surface import default_grid, surface_2d
from studio.core.maths.objectives import losses_of
from studio.core.vocab import LandscapeKind, Metric
from studio.engine.callbacks.base import Callback, every
from studio.engine.loop.trainer import Trainer

SNAPSHOT_RESOLUTION = 21
SNAPSHOT_SAMPLES = 1000
SHARPNESS_SAMPLES = 512
SHARPNESS_ITERS = 20


def _subset(t: Trainer, samples: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    data = t.train_data
    idx = torch.randperm(len(data), generator=torch.Generator().manual_seed(seed))[:samples].to(data.x.device)
    return data.normalise(data.x[idx]), data.y[idx]


class LandscapeSnapshot(Callback):
    """Every ``every`` epochs: the 2-D landscape around the current weights, saved under
    ``run_dir/landscapes/live_2d_epochNNNN.npz`` and announced as an ``artifact`` message."""

    stage = "observe"

    def __init__(self, run_dir: str | Path, every: int, resolution: int = SNAPSHOT_RESOLUTION,
                 samples: int = SNAPSHOT_SAMPLES, seed: int = 0) -> None:
        self.run_dir, self.every, self.resolution = Path(run_dir), every, resolution
        self.samples, self.seed = samples, seed
        self._data: tuple[torch.Tensor, torch.Tensor] | None = None

    def describe(self) -> str:
        return (f"a {self.resolution}×{self.resolution} loss landscape around the weights "
                f"{every(self.every, 'epoch')} ({self.samples} training samples)")

    def on_epoch_end(self, t: Trainer) -> None:
        if not t.ctx.is_main or (t.epoch + 1) % self.every:
            return
        started = time.perf_counter()
        if self._data is None:
            self._data = _subset(t, self.samples, self.seed)
        x, y = self._data
        center = parameters_of(t.net)
        d1, d2 = normalized_directions(center, 2, self.seed)
        grid = default_grid(self.resolution)
        out = surface_2d(t.net, center, d1, d2, x, y, grid, grid, **losses_of(t.task))
        has_bn = any(isinstance(m, torch.nn.modules.batchnorm._BatchNorm) for m in t.net.modules())
        meta: dict[str, Any] = {
            "run_id": t.run_id, "live": True, "epoch": t.epoch + 1, "step": t.step,
            "checkpoint": f"epoch {t.epoch + 1}",
            "split": "train", "samples": len(y), "seed": self.seed, "span": 1.0, "model": t.cfg.model.name,
            "dataset": t.cfg.data.name, "evaluator": "fast (vmap)", "device": t.ctx.device.type,
            "directions": "random Gaussian, filter-normalised (Li et al. 2018)",
            "batch_norm": "BatchNorm in eval mode with the running statistics at this epoch" if has_bn
            else "no BatchNorm in the model",
            "seconds": round(time.perf_counter() - started, 3),
        }
        values: dict[str, Any] = {Metric.TRAIN_LOSS: out["loss"], Metric.TRAIN_ACC: out["acc"]}
        result = Landscape(LandscapeKind.SURFACE, grid, grid, values, None, meta)
        path = io.save(result, self.run_dir, name=f"live_2d_epoch{t.epoch + 1:04d}")
        t.emit(protocol.artifact(t.run_id, protocol.LANDSCAPE_FILE, str(path), summary=result.summary(),
                                 epoch=t.epoch + 1, step=t.step))


class SharpnessLogger(Callback):
    """The top Hessian eigenvalue (Lanczos on Hessian-vector products) as the metric ``sharpness/top_eig``:
    at the start and every ``every`` epochs."""

    NAME = Metric.SHARPNESS
    stage = "observe"

    def __init__(self, every: int, samples: int = SHARPNESS_SAMPLES, iters: int = SHARPNESS_ITERS,
                 seed: int = 0) -> None:
        self.every, self.samples, self.iters, self.seed = every, samples, iters, seed
        self._data: tuple[torch.Tensor, torch.Tensor] | None = None

    def describe(self) -> str:
        return (f"the top Hessian eigenvalue ({self.NAME}) at the start and {every(self.every, 'epoch')} "
                f"({self.samples} training samples)")

    def top_eigenvalue(self, t: Trainer) -> float:
        if self._data is None:
            self._data = _subset(t, self.samples, self.seed)
        was_training = t.net.training
        try:
            loss = curvature.LossFunction(t.net, parameters_of(t.net), *self._data,
                                          losses_of(t.task)["loss_fn"])
            return curvature.lanczos(loss.matvec, loss.dim, k=1, iters=self.iters, tol=1e-3, seed=self.seed,
                                     device=loss.device)[0]
        finally:
            t.net.train(was_training)

    def _log(self, t: Trainer, epoch: int) -> None:
        if not t.ctx.is_main:
            return
        value = self.top_eigenvalue(t)
        t.emit(protocol.metrics(t.run_id, [(t.step, self.NAME, value, time.time())], step=t.step,
                                total_steps=t.total_steps, epoch=epoch, epochs=t.cfg.train.epochs))

    def on_train_start(self, t: Trainer) -> None:
        self._log(t, 0)

    def on_epoch_end(self, t: Trainer) -> None:
        if (t.epoch + 1) % self.every == 0:
            self._log(t, t.epoch + 1)


def live_callbacks(cfg: Any, run_dir: str | Path) -> list[Callback]:
    """The callbacks ``train.landscape_every`` and ``train.sharpness_every`` ask for (none when both are 0)."""
    out: list[Callback] = []
    if getattr(cfg.train, "landscape_every", 0) > 0 and run_dir:
        out.append(LandscapeSnapshot(run_dir, cfg.train.landscape_every, seed=cfg.train.seed))
    if getattr(cfg.train, "sharpness_every", 0) > 0:
        out.append(SharpnessLogger(cfg.train.sharpness_every, seed=cfg.train.seed))
    return out
