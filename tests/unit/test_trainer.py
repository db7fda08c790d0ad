"""The training loop in-process (one rank), on small synthetic data: quick and exact."""

import math
import queue

import pytest

from studio.core.config import RunConfig
from studio.engine.loop.sinks import Sink


class ListSink(Sink):
    def __init__(self):
        self.messages = []

    def send(self, message):
        self.messages.append(message)


def make(overrides, tmp_path, control=None):
    from studio.engine.loop.distributed import DistContext
    from studio.engine.training.worker import build_trainer

    cfg = RunConfig().with_overrides(["data.name=moons", "data.n_samples=400", "model.widths=16",
                                      "train.batch_size=32", "train.metric_interval=5", *overrides])
    sink = ListSink()
    trainer = build_trainer(cfg, DistContext(), sink, "run", str(tmp_path), control)
    return trainer, sink


def test_epoch_shards_partition_every_index_like_distributed_sampler():
    import torch

    from studio.engine.loop.device_data import epoch_shard
    from studio.engine.loop.distributed import DistContext

    n, world = 103, 4
    shards = [epoch_shard(n, epoch=2, seed=7, ctx=DistContext(rank=r, world_size=world)) for r in range(world)]
    assert len({len(s) for s in shards}) == 1  # every rank takes the same number of steps
    union = torch.cat(shards)
    assert set(union.tolist()) == set(range(n)) and len(union) == 104  # padded by wrapping
    assert not torch.equal(epoch_shard(n, 3, 7, DistContext()), epoch_shard(n, 2, 7, DistContext()))


def test_training_learns_and_reports(tmp_path):
    import torch

    trainer, sink = make(["train.epochs=15", "optimizer.lr=0.01"], tmp_path)
    summary = trainer.fit()
    assert summary["steps"] == trainer.total_steps == 15 * 12  # 360 train points / 32
    assert summary["test_acc"] > 0.85 and summary["val_acc"] > 0.85
    losses = [v for m in sink.messages if m["type"] == "metrics" for _, n, v, _ in m["rows"] if n == "train/loss"]
    assert losses[-1] < losses[0] * 0.6
    names = {n for m in sink.messages if m["type"] == "metrics" for _, n, _, _ in m["rows"]}
    assert {"train/loss", "train/acc", "val/loss", "val/acc", "lr", "throughput", "test/acc"} <= names
    ckpts = sorted(p.name for p in (tmp_path / "checkpoints").iterdir())
    assert ckpts == ["final.pt", "step_0000000.pt", f"step_{trainer.total_steps:07d}.pt"]
    state = torch.load(tmp_path / "checkpoints" / "final.pt", weights_only=True)
    assert state["step"] == trainer.total_steps and "model" in state


def test_same_seed_same_run(tmp_path):
    a, _ = make(["train.epochs=2"], tmp_path / "a")
    b, _ = make(["train.epochs=2"], tmp_path / "b")
    assert a.fit()["test_loss"] == b.fit()["test_loss"]


def test_stop_command_stops_at_the_next_step_and_checkpoints(tmp_path):
    control = queue.Queue()
    trainer, sink = make(["train.epochs=50"], tmp_path, control)
    control.put("stop")
    summary = trainer.fit()
    assert trainer.should_stop and summary["steps"] == 1
    assert (tmp_path / "checkpoints" / "final.pt").exists()


def test_lr_schedule_reaches_the_optimizer(tmp_path):
    trainer, sink = make(["schedule.name=cosine", "train.epochs=2", "optimizer.lr=0.1"], tmp_path)
    trainer.fit()
    lrs = {s: v for m in sink.messages if m["type"] == "metrics" for s, n, v, _ in m["rows"] if n == "lr"}
    total = trainer.total_steps
    for step, lr in lrs.items():  # the rate in force after `step` optimizer steps
        assert lr == pytest.approx(0.1 * 0.5 * (1 + math.cos(math.pi * step / total)), abs=1e-9)
    assert lrs[total] == pytest.approx(0.0, abs=1e-9)
