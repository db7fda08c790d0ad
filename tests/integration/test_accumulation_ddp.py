"""Gradient accumulation under DDP (2 gloo ranks on the CPU): the gradient all-reduce happens once per optimizer
step, not once per micro-batch (``no_sync`` on the k−1 first micro-batches), counted by a DDP comm hook."""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING

import pytest

from studio.core.config import RunConfig
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
