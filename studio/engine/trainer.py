"""The training loop. Features (metrics, control, checkpoints, evaluation) are callbacks.

Speed tricks, each visible here:
- the dataset is one tensor on the device and a batch is an index gather (engine/device_data.py);
- loss and accuracy accumulate on the device; callbacks read them every ``metric_interval`` steps,
  the loop's only host syncs;
- ``zero_grad(set_to_none=True)``; evaluation under ``torch.inference_mode``.
"""

from __future__ import annotations

import math
import time
from typing import Any

import torch
from torch import nn

from studio.core.config import RunConfig
from studio.engine.device_data import DeviceData, epoch_shard
from studio.engine.distributed import DistContext, all_reduce_sum
from studio.engine.protocol import Message
from studio.engine.sinks import Sink


class Callback:
    """Hooks the loop calls; override the ones you need."""

    def on_train_start(self, trainer: Trainer) -> None: ...
    def on_step_end(self, trainer: Trainer) -> None: ...
    def on_epoch_end(self, trainer: Trainer) -> None: ...
    def on_train_end(self, trainer: Trainer) -> None: ...


class Trainer:
    def __init__(self, model: nn.Module, net: nn.Module, optimizer: torch.optim.Optimizer,
                 scheduler: Any, train: DeviceData, val: DeviceData, test: DeviceData, cfg: RunConfig,
                 ctx: DistContext, sink: Sink, run_id: str, callbacks: list[Callback]) -> None:
        self.model, self.net = model, net  # net: the plain module (model may be its DDP wrapper)
        self.optimizer, self.scheduler = optimizer, scheduler
        self.train_data, self.val_data, self.test_data = train, val, test
        self.cfg, self.ctx, self.sink, self.run_id = cfg, ctx, sink, run_id
        self.callbacks = callbacks
        self.loss_fn = nn.CrossEntropyLoss()
        self.batch = max(1, cfg.train.batch_size // ctx.world_size)  # per rank; the config's is global
        self.total_steps = self.count_steps(len(train), cfg, ctx.world_size)
        self.step = 0
        self.epoch = 0
        self.epochs_done = 0
        self.should_stop = False
        self.stop_reason = ""
        # (loss sum, correct, count) on the device: since the last read, and over this epoch
        self.window = torch.zeros(3, device=ctx.device)
        self.epoch_sums = torch.zeros(3, device=ctx.device)
        self.summary: dict[str, Any] = {}
        self.started = time.perf_counter()

    @staticmethod
    def count_steps(n_train: int, cfg: RunConfig, world_size: int) -> int:
        """Optimizer steps in the whole run: every rank takes the same number."""
        batch = max(1, cfg.train.batch_size // world_size)
        return math.ceil(math.ceil(n_train / world_size) / batch) * cfg.train.epochs

    # --- helpers callbacks use -------------------------------------------------------------
    def emit(self, message: Message) -> None:
        """Send a message from rank 0 (the others stay quiet)."""
        if self.ctx.is_main:
            self.sink.send(message)

    def reduce(self, values: torch.Tensor) -> torch.Tensor:
        """Sum a device tensor over ranks and bring it to the host (a sync: call it rarely)."""
        return all_reduce_sum(self.ctx, values.clone()).cpu()

    def lr(self) -> float:
        return self.optimizer.param_groups[0]["lr"]

    @torch.inference_mode()
    def evaluate(self, data: DeviceData) -> tuple[float, float]:
        """(mean loss, accuracy) over a split, shared out across ranks; nan for an empty split."""
        was_training = self.net.training
        self.net.eval()
        sums = torch.zeros(3, device=self.ctx.device)
        for x, y in data.slices(1024, self.ctx):
            logits = self.net(x)
            sums += torch.stack([nn.functional.cross_entropy(logits, y, reduction="sum"),
                                 (logits.argmax(1) == y).sum().float(), torch.tensor(float(len(y)), device=x.device)])
        self.net.train(was_training)
        loss, correct, count = self.reduce(sums).tolist()
        return (loss / count, correct / count) if count else (math.nan, math.nan)

    def _call(self, hook: str) -> None:
        for cb in self.callbacks:
            getattr(cb, hook)(self)

    # --- the loop --------------------------------------------------------------------------
    def fit(self) -> dict[str, Any]:
        self.started = time.perf_counter()
        self._call("on_train_start")
        for self.epoch in range(self.cfg.train.epochs):
            if self.should_stop:
                break
            self.model.train()
            self.epoch_sums.zero_()
            order = epoch_shard(len(self.train_data), self.epoch, self.cfg.train.seed, self.ctx)
            order = order.to(self.ctx.device, non_blocking=True)
            for start in range(0, len(order), self.batch):
                x, y = self.train_data.batch(order[start:start + self.batch])
                logits = self.model(x)
                loss = self.loss_fn(logits, y)
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                self.optimizer.step()
                self.scheduler.step()
                with torch.no_grad():
                    n = torch.tensor(float(len(y)), device=loss.device)
                    sums = torch.stack([loss.detach() * n, (logits.argmax(1) == y).sum().float(), n])
                    self.window += sums
                    self.epoch_sums += sums
                self.step += 1
                self._call("on_step_end")
                if self.should_stop:
                    break
            else:
                self.epochs_done = self.epoch + 1
                self._call("on_epoch_end")
        self._call("on_train_end")
        return self.summary

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self.started
