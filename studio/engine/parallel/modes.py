"""One training step per mode, on one rank: the same MLP, batch and SGD, each mode with its own communication.

A mode is built by :func:`build_mode` into a :class:`Mode` whose ``step(x, y)`` runs one training step on this
rank (forward, backward, the optimizer) recording its intervals, and returns the loss this rank knows (the
global batch's mean loss on the rank that computes it; DDP: this rank's share; ``None`` on a rank without one).

- ``single``: rank 0 alone, the whole batch.
- ``ddp``: ``DistributedDataParallel``, each rank batch/ranks; the gradient all-reduce timed by a comm hook
  (the default all-reduce-then-average, with its start and end stamped).
- ``model``: the layers in contiguous stages, one per rank; the activations go forward and the gradients back
  with blocking ``dist.send``/``dist.recv``; the whole batch, so one rank works at a time.
- ``pipeline-gpipe`` / ``pipeline-1f1b``: ``torch.distributed.pipelining`` (``PipelineStage`` with
  ``ScheduleGPipe`` / ``Schedule1F1B``, ``scale_grads`` so the gradient is the global batch's mean). Measured for
  real by wrapping the stage's ``forward_one_chunk``/``backward_one_chunk`` (and the loss) and the schedule
  module's ``_batch_p2p``/``_wait_batch_p2p`` (the P2P it issues and waits on: the time blocked in a receive is
  "recv", which includes waiting for the peer's compute).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from studio.engine.parallel.timeline import ActivationMeter, Recorder

Step = Callable[[Any, Any], "float | None"]


@dataclass
class Mode:
    """A built mode on one rank: its step, the parameters and optimizer this rank holds, its activation meter."""

    step: Step
    module: Any  # the layers this rank holds (an nn.Module)
    optimizer: Any
    meter: ActivationMeter
    layers: list[str]
    active: bool = True  # False: this rank takes no part (ranks > 0 in single mode)
    close: Callable[[], None] = lambda: None


def _sgd(module: Any, lr: float) -> Any:
    import torch

    return torch.optim.SGD(module.parameters(), lr=lr)


def build_mode(mode: str, microbatches: int, net: Any, stages: list[Any], stage_layers: list[list[str]],
               rank: int, world: int, lr: float, rec: Recorder, device: Any) -> Mode:
    """The mode ``mode`` on ``rank`` for the freshly initialised ``net`` (``stages``: its contiguous stages)."""
    if mode == "single":
        return _single(net, rank, lr, rec, stage_layers)
    if mode == "ddp":
        return _ddp(net, rank, world, lr, rec, stage_layers, device)
    if mode == "model":
        return _model(stages[rank], rank, world, lr, rec, stage_layers[rank], device)
    return _pipeline(mode, microbatches, stages[rank], rank, world, lr, rec, stage_layers[rank], device)


def _all(stage_layers: list[list[str]]) -> list[str]:
    return [name for names in stage_layers for name in names]


def _single(net: Any, rank: int, lr: float, rec: Recorder, stage_layers: list[list[str]]) -> Mode:
    import torch.nn.functional as F

    opt = _sgd(net, lr)
    meter = ActivationMeter(list(net.parameters()))

    def step(x: Any, y: Any) -> float:
        opt.zero_grad(set_to_none=True)
        with meter.track():
            with rec.span("forward"):
                loss = F.cross_entropy(net(x), y)
            with rec.span("backward"):
                loss.backward()
        with rec.span("optimizer"):
            opt.step()
        return float(loss.item())

    return Mode(step, net, opt, meter, _all(stage_layers), active=rank == 0)


def _ddp(net: Any, rank: int, world: int, lr: float, rec: Recorder, stage_layers: list[list[str]],
         device: Any) -> Mode:
    import torch.distributed as dist
    import torch.nn.functional as F
    from torch.nn.parallel import DistributedDataParallel

    ids = [device.index] if device.type == "cuda" else None
    model = DistributedDataParallel(net, device_ids=ids)
    ready: list[float] = []  # when each bucket's gradients were ready (its all-reduce began), this step

    def timed_allreduce(_state, bucket):  # DDP checks the hook's annotations: it gets none
        ready.append(time.perf_counter())
        fut = dist.all_reduce(bucket.buffer(), async_op=True).get_future()
        return fut.then(lambda f: f.value()[0].div_(world))

    model.register_comm_hook(None, timed_allreduce)
    opt = _sgd(net, lr)
    meter = ActivationMeter(list(net.parameters()))

    def step(x: Any, y: Any) -> float:
        opt.zero_grad(set_to_none=True)
        ready.clear()
        with meter.track():
            with rec.span("forward"):
                loss = F.cross_entropy(model(x), y)
            start = time.perf_counter()
            loss.backward()  # returns once every bucket's all-reduce is done
            end = time.perf_counter()
        # the backward computes until the last bucket's gradients are ready (an earlier bucket's all-reduce
        # overlaps it, counted as backward: compute goes on); then the rank waits for the all-reduces
        last = ready[-1] if ready else end
        rec.add("backward", start, last)
        rec.add("allreduce", last, end)
        with rec.span("optimizer"):
            opt.step()
        return float(loss.item())

    return Mode(step, net, opt, meter, _all(stage_layers))


def _model(stage: Any, rank: int, world: int, lr: float, rec: Recorder, layers: list[str], device: Any) -> Mode:
    import torch
    import torch.distributed as dist
    import torch.nn.functional as F

    opt = _sgd(stage, lr)
    meter = ActivationMeter(list(stage.parameters()))
    first, last = rank == 0, rank == world - 1
    in_features = next(m for m in stage.modules() if isinstance(m, torch.nn.Linear)).in_features

    def step(x: Any, y: Any) -> float | None:
        opt.zero_grad(set_to_none=True)
        loss = None
        with meter.track():
            if first:
                inp = x
            else:
                inp = torch.empty(len(y), in_features, device=device)
                with rec.span("recv"):
                    dist.recv(inp, rank - 1)
                inp.requires_grad_()
            with rec.span("forward"):
                out = stage(inp)
                if last:
                    loss = F.cross_entropy(out, y)
            if last:
                with rec.span("backward"):
                    loss.backward()  # type: ignore[union-attr]
            else:
                with rec.span("send"):
                    dist.send(out.detach().contiguous(), rank + 1)
                grad = torch.empty_like(out)
                with rec.span("recv"):
                    dist.recv(grad, rank + 1)
                with rec.span("backward"):
                    out.backward(grad)
            if not first:
                with rec.span("send"):
                    dist.send(inp.grad.contiguous(), rank - 1)
        with rec.span("optimizer"):
            opt.step()
        return float(loss.item()) if loss is not None else None

    return Mode(step, stage, opt, meter, layers)


class _Tagged(list):
    """The works of one ``_batch_p2p`` call, with its description (``fwd_recv``, ``bwd_send``, …)."""

    desc = ""


@contextmanager
def _timed_p2p(rec: Recorder) -> Iterator[None]:
    """Time the P2P the pipelining schedules issue and wait on (patched on the schedules module, restored after)."""
    from torch.distributed.pipelining import schedules

    batch, wait = schedules._batch_p2p, schedules._wait_batch_p2p

    def timed_batch(ops: Any, desc: str | None = None) -> Any:
        start = time.perf_counter()
        works = _Tagged(batch(ops, desc=desc))
        works.desc = desc or ""
        if ops and "send" in works.desc:  # issuing the sends (gloo: the copy out)
            rec.add("send", start, time.perf_counter())
        return works

    def timed_wait(works: Any) -> None:
        if not works:
            return wait(works)
        kind = "recv" if "recv" in getattr(works, "desc", "recv") else "send"
        with rec.span(kind):
            wait(works)

    schedules._batch_p2p, schedules._wait_batch_p2p = timed_batch, timed_wait  # type: ignore[assignment]
    try:
        yield
    finally:
        schedules._batch_p2p, schedules._wait_batch_p2p = batch, wait


def _pipeline(mode: str, microbatches: int, stage: Any, rank: int, world: int, lr: float, rec: Recorder,
              layers: list[str], device: Any) -> Mode:
    import torch.nn.functional as F
    from torch.distributed.pipelining import PipelineStage, Schedule1F1B, ScheduleGPipe

    kind = ScheduleGPipe if mode == "pipeline-gpipe" else Schedule1F1B
    pstage = PipelineStage(stage, rank, world, device)
    schedule = kind(pstage, n_microbatches=microbatches, loss_fn=F.cross_entropy, scale_grads=True)
    forward, backward, compute_loss = pstage.forward_one_chunk, pstage.backward_one_chunk, schedule._maybe_compute_loss

    def timed_forward(chunk: int, *args: Any, **kwargs: Any) -> Any:
        with rec.span("forward", chunk):
            return forward(chunk, *args, **kwargs)

    def timed_backward(chunk: int, *args: Any, **kwargs: Any) -> Any:
        with rec.span("backward", chunk):
            return backward(chunk, *args, **kwargs)

    def timed_loss(stage_: Any, output: Any, target_mbs: Any, chunk: int, *args: Any) -> Any:
        with rec.span("forward", chunk):  # the loss of a micro-batch: part of the last stage's forward
            return compute_loss(stage_, output, target_mbs, chunk, *args)

    pstage.forward_one_chunk = timed_forward  # type: ignore[method-assign,assignment]
    pstage.backward_one_chunk = timed_backward  # type: ignore[method-assign,assignment]
    if rank == world - 1:  # only the last stage computes a loss
        schedule._maybe_compute_loss = timed_loss  # type: ignore[method-assign]
    opt = _sgd(stage, lr)
    meter = ActivationMeter(list(stage.parameters()))
    first, last = rank == 0, rank == world - 1

    def step(x: Any, y: Any) -> float | None:
        opt.zero_grad(set_to_none=True)
        losses: list[Any] = []
        with meter.track(), _timed_p2p(rec):
            if first and last:
                schedule.step(x, target=y, losses=losses)
            elif first:
                schedule.step(x)
            elif last:
                schedule.step(target=y, losses=losses)
            else:
                schedule.step()
        with rec.span("optimizer"):
            opt.step()
        return float(sum(float(v) for v in losses) / len(losses)) if last and losses else None

    return Mode(step, stage, opt, meter, layers)
