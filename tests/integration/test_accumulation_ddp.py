"""Gradient accumulation under DDP (2 gloo ranks on the CPU): the gradient all-reduce happens once per optimizer
step, not once per micro-batch (``no_sync`` on the k−1 first micro-batches), counted by a DDP comm hook; and k
micro-batches train exactly as one batch of k × B, a short last micro-batch included."""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING

import pytest

from studio.core.config import RunConfig
from studio.engine.callbacks.base import Callback
from studio.engine.loop.sinks import NullSink

if TYPE_CHECKING:
    from studio.engine.loop.distributed import DistContext

BASE = ["data.name=moons", "data.n_samples=240", "model.name=mlp", "model.widths=16", "train.batch_size=16",
        "train.histogram_every=0", "train.trajectory_snapshots=false", "optimizer.name=sgd", "optimizer.lr=0.1"]


def make(run_dir: str, *sets: str, ctx: DistContext):
    from studio.engine.training.worker import build_trainer

    cfg = RunConfig().with_overrides([*BASE, *sets])
    return build_trainer(cfg, ctx, NullSink(), "t", run_dir, None)


def _ddp_rank(rank: int, folder: str, k: int) -> None:
    import torch
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks

    from studio.engine.loop import distributed

    ctx = distributed.init(rank, 2, f"file://{folder}/rendezvous_{k}", torch.device("cpu"))
    try:
        torch.set_num_threads(1)
        t = make(f"{folder}/run_{k}", f"train.accumulate_steps={k}", "hardware.processes=2", "train.epochs=1",
                 ctx=ctx)
        calls = {"n": 0}

        def counting_hook(state: dict, bucket):  # noqa: ANN001 - torch's GradBucket
            state["n"] += 1
            return default_hooks.allreduce_hook(None, bucket)

        t.model.register_comm_hook(calls, counting_hook)
        t.fit()
        with open(f"{folder}/rank{rank}_k{k}.json", "w", encoding="utf-8") as fh:
            json.dump({"calls": calls["n"], "steps": t.step, "micro": t.batch_in_epoch}, fh)
        distributed.shutdown(synchronize=True)
    finally:
        distributed.shutdown()


@pytest.mark.slow
def test_ddp_all_reduces_once_per_optimizer_step_not_per_micro_batch(tmp_path):
    import torch.multiprocessing as mp

    k = 3
    mp.spawn(_ddp_rank, args=(str(tmp_path), k), nprocs=2, join=True)
    for rank in (0, 1):
        got = json.loads((tmp_path / f"rank{rank}_k{k}.json").read_text())
        assert got["steps"] == math.ceil(got["micro"] / k)  # micro-batches this epoch, k per step
        assert got["micro"] > got["steps"] > 1
        assert got["calls"] == got["steps"]  # one bucket (a small model), one all-reduce per optimizer step


def _curve_rank(rank: int, folder: str, name: str, sets: tuple[str, ...]) -> None:
    import torch

    from studio.engine.loop import distributed

    ctx = distributed.init(rank, 2, f"file://{folder}/rendezvous_{name}", torch.device("cpu"))
    try:
        torch.set_num_threads(1)
        t = make(f"{folder}/run_{name}", *sets, "hardware.processes=2", "train.epochs=2", "optimizer.name=adam",
                 "optimizer.lr=0.01", ctx=ctx)
        weights: list[list[float]] = []

        class Tap(Callback):
            def on_step_end(self, trainer) -> None:
                weights.append(torch.cat([p.detach().reshape(-1) for p in trainer.net.parameters()]).tolist())

        t.callbacks.insert(0, Tap())
        t.fit()
        with open(f"{folder}/{name}_rank{rank}.json", "w", encoding="utf-8") as fh:
            json.dump(weights, fh)
        distributed.shutdown(synchronize=True)
    finally:
        distributed.shutdown()


@pytest.mark.slow
def test_ddp_k_micro_batches_with_a_short_last_one_train_as_one_batch(tmp_path):
    """216 training samples, 108 per rank: per rank 2 steps of 40 and one of 28 (micro-batches 10, 10, 8)."""
    import torch
    import torch.multiprocessing as mp

    runs = {"big": ("train.batch_size=80",), "acc": ("train.batch_size=20", "train.accumulate_steps=4")}
    for name, sets in runs.items():
        mp.spawn(_curve_rank, args=(str(tmp_path), name, sets), nprocs=2, join=True)
    got = {name: torch.tensor(json.loads((tmp_path / f"{name}_rank0.json").read_text())) for name in runs}
    assert got["big"].shape[0] == 2 * 3
    torch.testing.assert_close(got["acc"], got["big"], rtol=1e-5, atol=1e-6)
    other = torch.tensor(json.loads((tmp_path / "acc_rank1.json").read_text()))
    torch.testing.assert_close(other, got["acc"])  # the ranks hold the same weights
