"""The training loop. Features (metrics, control, checkpoints, evaluation) are callbacks.

Speed tricks, each visible here:
- the dataset is one tensor on the device and a batch is an index gather (engine/loop/device_data.py);
- loss and accuracy accumulate on the device; callbacks read them every ``metric_interval`` steps,
  the loop's only host syncs;
- ``zero_grad(set_to_none=True)``; evaluation under ``torch.inference_mode``;
- mixed precision: ``train.precision`` autocasts forward + loss (engine/loop/precision.py; fp16 scales the loss);
- gradient accumulation: ``train.accumulate_steps`` = k micro-batches per optimizer step, each micro-batch's mean
  loss weighted by its share of the step's samples (so k × B is batch kB exactly, a ragged last micro-batch
  included), DDP's all-reduce skipped (``no_sync``) on all but the last. ``step``, the schedule, metrics,
  callbacks' ``on_step_end`` and checkpoints count optimizer steps, so a resume starts at a step boundary.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

import torch
from torch import nn

from studio.core.config import RunConfig
from studio.core.contracts.protocol import Message
from studio.core.contracts.runs import RunSummary
from studio.core.maths.objectives import Classification, Regression
from studio.engine.loop.augment import attach as attach_augmentation
from studio.engine.loop.batching import accumulation_groups, epoch_slices, plan_batches, steps_per_epoch
from studio.engine.loop.device_data import DeviceData, epoch_shard
from studio.engine.loop.distributed import DistContext, all_reduce_sum
from studio.engine.loop.precision import Precision
from studio.engine.loop.sinks import Sink


class LoopHooks(Protocol):
    """What the loop calls on each of its callbacks (``engine/callbacks/base.Callback`` has every hook as a no-op:
    a callback overrides the ones it needs)."""

    def on_train_start(self, trainer: Trainer) -> None: ...
    def on_epoch_start(self, trainer: Trainer) -> None: ...
    def on_after_backward(self, trainer: Trainer) -> None: ...
    def on_step_end(self, trainer: Trainer) -> None: ...
    def on_epoch_end(self, trainer: Trainer) -> None: ...
    def on_train_end(self, trainer: Trainer) -> None: ...


class Trainer:
    def __init__(self, model: nn.Module, net: nn.Module, optimizer: torch.optim.Optimizer,
                 scheduler: Any, train: DeviceData, val: DeviceData, test: DeviceData, cfg: RunConfig,
                 ctx: DistContext, sink: Sink, run_id: str, callbacks: Sequence[LoopHooks],
                 task: Classification | Regression | None = None, batches: list[int] | None = None) -> None:
        self.model, self.net = model, net  # net: the plain module (model may be its DDP wrapper)
        self.optimizer, self.scheduler = optimizer, scheduler
        self.train_data, self.val_data, self.test_data = train, val, test
        attach_augmentation(cfg.data.params, train, val, test)  # batch-wise, on the device (engine/loop/augment.py)
        self.cfg, self.ctx, self.sink, self.run_id = cfg, ctx, sink, run_id
        self.callbacks = list(callbacks)  # in the order given (engine/callbacks/assemble.py sorts a run's)
        self.task = task or Classification()
        # per-rank batch size of each epoch (the config's batch is global; see engine/loop/batching.py)
        self.batches = batches or plan_batches(len(train), cfg.train, ctx.world_size)
        self.batch = self.batches[0]
        self.accumulate = max(1, cfg.train.accumulate_steps)  # micro-batches per optimizer step
        self.precision = Precision(cfg.train.precision, ctx.device)
        self.total_steps = sum(steps_per_epoch(len(train), b, ctx.world_size, self.accumulate, cfg.train.epoch_steps)
                               for b in self.batches)
        self.needs_closure = getattr(optimizer, "requires_closure", False)  # Newton re-evaluates the loss
        self.step = 0
        self.epoch = 0
        self.epochs_done = 0
        # where the loop starts (a resumed run: engine/loop/resume.py) and how far into the epoch it is
        self.start_epoch = 0
        self.skip_batches = 0
        self.batch_in_epoch = 0
        self.resumed = False
        self.rng_at_stop: Any = None  # RNG states when the loop left (before the end-of-run callbacks)
        self.restore_rng: Any = None  # set by a resume: puts the saved RNG states back after on_train_start
        self.should_stop = False
        self.stopped_by_user = False
        self.stop_reason = ""
        # (loss sum, correct, count) on the device: since the last read, and over this epoch
        self.window = torch.zeros(3, device=ctx.device)
        self.epoch_sums = torch.zeros(3, device=ctx.device)
        self.summary: RunSummary = {}
        self.started = time.perf_counter()

    @staticmethod
    def count_steps(n_train: int, cfg: RunConfig, world_size: int, full_batch: bool = False) -> int:
        """Optimizer steps in the whole run: every rank takes the same number."""
        plan = plan_batches(n_train, cfg.train, world_size, full_batch)
        return sum(steps_per_epoch(n_train, b, world_size, cfg.train.accumulate_steps, cfg.train.epoch_steps)
                   for b in plan)

    def request_stop(self, reason: str, by_user: bool = False) -> None:
        """End the run after this step: "stopped" when the user asked, else "finished" with ``reason``."""
        self.should_stop, self.stop_reason = True, reason
        self.stopped_by_user = self.stopped_by_user or by_user

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

    @property
    def global_batch(self) -> int:
        """Samples per optimizer step over all ranks: per-rank batch × accumulate_steps × ranks."""
        return self.batch * self.accumulate * self.ctx.world_size

    @torch.inference_mode()
    def evaluate(self, data: DeviceData) -> tuple[float, float]:
        """(mean loss, accuracy) over a split, shared out across ranks; nan for an empty split (and for the
        accuracy of a regression)."""
        was_training = self.net.training
        self.net.eval()
        sums = torch.zeros(3, device=self.ctx.device)
        for x, y in data.slices(1024, self.ctx):
            with self.precision.autocast():
                out = self.net(x)
            sums += self.task.sums(out.float(), y)
        self.net.train(was_training)
        loss, correct, count = self.reduce(sums).tolist()
        if not count:
            return math.nan, math.nan
        return loss / count, correct / count if self.task.has_accuracy else math.nan

    def _call(self, hook: str) -> None:
        for cb in self.callbacks:
            getattr(cb, hook)(self)

    # --- the loop --------------------------------------------------------------------------
    def train_step(self, micro_batches: Iterable[tuple[torch.Tensor, torch.Tensor]], sizes: Sequence[int]) -> None:
        """One optimizer step over micro-batches of ``sizes`` samples: forward (autocast) and backward of each, its
        mean loss weighted by its share of the step's samples (size ÷ sum of ``sizes``), so the summed gradient is
        the mean over the step's samples whatever their split — a short last micro-batch counts each of its samples
        once, as one big batch would (DDP all-reduces on the last one only; every rank's shard has the same size, so
        the ranks' mean is the global mean). Then the gradient hooks, the optimizer and schedule steps. Each
        micro-batch's (loss, correct, count) is added to the running sums."""
        self.optimizer.zero_grad(set_to_none=True)
        total = sum(sizes)
        last: tuple[torch.Tensor, torch.Tensor] | None = None
        for index, (x, y) in enumerate(micro_batches):
            last = (x, y)
            with self._sync(last=index == len(sizes) - 1):
                with self.precision.autocast():
                    out = self.model(x)
                    loss = self.task.loss(out, y)
                self.precision.backward(loss * (sizes[index] / total) if len(sizes) > 1 else loss)
            with torch.no_grad():
                sums = self.task.sums(out.detach().float(), y, loss.detach().float())
                self.window += sums
                self.epoch_sums += sums
        self.precision.unscale(self.optimizer)
        self._call("on_after_backward")
        closure = None
        if self.needs_closure and last is not None:  # one micro-batch per step (no accumulation for these)
            cx, cy = last

            def closure() -> torch.Tensor:
                with self.precision.autocast():
                    return self.task.loss(self.model(cx), cy)
        self.precision.step(self.optimizer, closure)
        self.scheduler.step()

    def _sync(self, last: bool) -> Any:
        """DDP's gradient all-reduce on the last micro-batch of a step only (``no_sync`` on the others)."""
        no_sync = getattr(self.model, "no_sync", None)
        return contextlib.nullcontext() if last or no_sync is None else no_sync()

    def fit(self) -> RunSummary:
        self.started = time.perf_counter()
        self._call("on_train_start")
        if self.restore_rng is not None:
            self.restore_rng()
        for epoch in range(self.start_epoch, self.cfg.train.epochs):
            if self.should_stop:
                break
            self.epoch = epoch
            self.batch = self.batches[self.epoch]
            skip = self.skip_batches if epoch == self.start_epoch else 0  # batches a resumed run already did
            self._call("on_epoch_start")
            self.model.train()
            if not skip:
                self.epoch_sums.zero_()
            self.batch_in_epoch = skip
            order = epoch_shard(len(self.train_data), self.epoch, self.cfg.train.seed, self.ctx)
            order = order.to(self.ctx.device, non_blocking=True)
            slices = epoch_slices(len(order), self.batch, self.accumulate, self.cfg.train.epoch_steps)
            fetch = self.train_data.fetcher(order, slices, skip, self.cfg.train.seed, self.epoch)
            for start, stop in accumulation_groups(len(slices), self.accumulate):
                if start < skip:  # a resumed run: checkpoints are taken at step boundaries only
                    continue
                sizes = [slices[i].stop - slices[i].start for i in range(start, stop)]
                self.train_step((fetch(i) for i in range(start, stop)), sizes)
                self.batch_in_epoch = stop
                self.step += 1
                self._call("on_step_end")
                if self.should_stop:
                    break
            else:
                self.epochs_done = self.epoch + 1
                self._call("on_epoch_end")
        self.rng_at_stop = self.capture_rng()
        if self.should_stop:  # stopped: the summary so far and the newest state before the end-of-run work, which a
            self._call("on_stop")  # busy machine may not finish before the launcher's grace period ends
        self._call("on_train_end")
        return self.summary

    def capture_rng(self) -> Any:
        """Every rank's RNG states and running loss sums (a collective; see engine/loop/checkpoints.py)."""
        from studio.engine.loop.checkpoints import gather_rng

        return gather_rng(self.ctx, {"epoch_sums": self.epoch_sums, "window": self.window})

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self.started
