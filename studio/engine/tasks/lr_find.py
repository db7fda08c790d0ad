"""The learning-rate range test on a fresh model built from a config (nothing is kept): an exponential ramp of the
learning rate over a few hundred steps of random batches, the loss at each, stopped once the smoothed loss blows
up (``core/maths/lr_range.py``), and the suggested rates. On a GPU it can also find the largest batch that fits in
its memory: the batch doubles until a step runs out of memory, then a few halvings of the gap (Lightning's
``scale_batch_size``, "binsearch")."""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
import torch

from studio.core.config import RunConfig
from studio.core.contracts.lr_find import LrFindRequest, LrFindResult
from studio.core.demos.common import report
from studio.core.maths import lr_range
from studio.core.maths.objectives import task_for
from studio.core.optim import OPTIMIZERS
from studio.core.runs.lineage import load_run_data, start_weights
from studio.engine.training.worker import build_model, build_optimizer, device_splits, pick_device

BATCH_SEARCH_STEPS = 3  # halvings of the gap between the last batch that fitted and the first that did not


def run(request: LrFindRequest, progress: Any = None) -> LrFindResult:
    request.validate()
    started = time.perf_counter()
    cfg = RunConfig.from_toml(request.config)
    torch.manual_seed(cfg.train.seed)
    device = pick_device(cfg, 0)
    report(progress, 0.0, "loading the data")
    data = load_run_data(cfg)
    train, _, _ = device_splits(data, cfg, device)
    batch = len(train) if "full_batch" in OPTIMIZERS.get(cfg.optimizer.name).tags else min(cfg.train.batch_size,
                                                                                          len(train))
    net = build_model(cfg, data, device, start_weights(cfg))
    optimizer = build_optimizer(cfg, net, batch, None, "lr-find")
    task = task_for(data.meta, cfg.train.label_smoothing)
    closure_needed = "closure" in OPTIMIZERS.get(cfg.optimizer.name).tags
    lrs = lr_range.ramp(request.start_lr, request.end_lr, request.steps)
    gen = torch.Generator().manual_seed(cfg.train.seed)
    losses: list[float] = []
    smooth: list[float] = []
    acc = 0.0
    net.train()
    for i, lr in enumerate(lrs):
        for group in optimizer.param_groups:
            group["lr"] = float(lr)
        x, y = train.batch(torch.randint(len(train), (batch,), generator=gen).to(device))
        loss = _step(net, optimizer, task, x, y, closure_needed)
        losses.append(loss)
        acc = lr_range.SMOOTHING * acc + (1 - lr_range.SMOOTHING) * loss
        smooth.append(acc / (1 - lr_range.SMOOTHING ** (i + 1)))
        if i % 10 == 0:
            report(progress, (i + 1) / len(lrs), f"lr {lr:.2g}: loss {loss:.3g}")
        if lr_range.diverged(np.asarray(smooth)):
            break
    taken = lrs[:len(losses)]
    found = lr_range.suggest(taken, np.asarray(smooth))
    max_batch, note = None, "the batch-size finder needs a GPU (this config trains on the CPU)"
    if request.find_batch and device.type == "cuda":
        report(progress, 1.0, "finding the largest batch that fits")
        max_batch, note = largest_batch(cfg, data, device, train, task, batch)
    elif not request.find_batch:
        note = ""

    def plain(values: list[float]) -> list[float]:
        return [v if math.isfinite(v) else float("nan") for v in values]

    return {"lrs": [float(v) for v in taken], "losses": plain(losses), "smoothed": plain(smooth),
            "suggestion": found.to_dict(),  # type: ignore[typeddict-item]  # the same keys
            "steps": len(losses), "stopped_early": len(losses) < len(lrs), "batch_size": batch,
            "optimizer": cfg.optimizer.name, "device": str(device), "max_batch": max_batch,
            "max_batch_note": note, "seconds": round(time.perf_counter() - started, 3)}


def _step(net: torch.nn.Module, optimizer: torch.optim.Optimizer, task: Any, x: torch.Tensor, y: torch.Tensor,
          closure_needed: bool) -> float:
    optimizer.zero_grad(set_to_none=True)
    loss = task.loss(net(x), y)
    loss.backward()
    if closure_needed:
        optimizer.step(lambda: task.loss(net(x), y))
    else:
        optimizer.step()
    return float(loss.detach())


def largest_batch(cfg: RunConfig, data: Any, device: torch.device, train: Any, task: Any,
                  start: int) -> tuple[int | None, str]:
    """The largest batch a training step fits in the GPU's memory (a fresh model and optimizer each try), and a
    sentence saying how it was found."""
    def fits(batch: int) -> bool:
        net = build_model(cfg, data, device, start_weights(cfg))
        optimizer = build_optimizer(cfg, net, batch, None, "batch-find")
        idx = torch.arange(batch, device=device) % len(train)
        try:
            x, y = train.batch(idx)
            _step(net, optimizer, task, x, y, False)
            torch.cuda.synchronize(device)
            return True
        except torch.cuda.OutOfMemoryError:
            return False
        finally:
            del net, optimizer
            torch.cuda.empty_cache()

    limit = 1 << 24
    good, bad = 0, None
    batch = max(1, start)
    while batch <= limit:
        if not fits(batch):
            bad = batch
            break
        good, batch = batch, batch * 2
    if good == 0:
        return None, f"even a batch of {start} does not fit in the GPU's memory"
    if bad is None:
        return good, f"every batch up to {good} fits (the search stops there)"
    for _ in range(BATCH_SEARCH_STEPS):
        middle = (good + bad) // 2
        if middle in (good, bad):
            break
        good, bad = (middle, bad) if fits(middle) else (good, middle)
    total = torch.cuda.get_device_properties(device).total_memory / 2**30
    return good, f"{good} fits and {bad} does not, on {torch.cuda.get_device_name(device)} ({total:.0f} GiB)"
