"""Training features as callbacks and plans: label smoothing, gradient clipping and noise, early stopping,
the GD convergence check, batch plans, the linear scaling rule, Ghost Batch Norm in a run, two-stage
fine-tuning, regression, and the divergence message. Runs go through the worker's ``build_trainer`` in-process."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

from studio.core.config import RunConfig
from studio.core.errors import Diverged
from studio.engine.loop.batching import batch_slices, lr_scale, plan_batches, steps_per_epoch
from studio.engine.loop.sinks import Sink


class ListSink(Sink):
    def __init__(self) -> None:
        self.messages: list[dict] = []

    def send(self, message: dict) -> None:
        self.messages.append(message)


BASE = ["data.name=moons", "data.n_samples=200", "model.name=mlp", "model.widths=16", "train.epochs=1",
        "train.batch_size=32", "train.metric_interval=5"]


def train(tmp_path, *sets: str, fit: bool = True):
    """Build (and fit) a run from ``--set`` style overrides on the small moons dataset, in this process."""
    from studio.engine.loop.distributed import DistContext
    from studio.engine.training.worker import build_trainer

    renamed = {s.split(".")[0] for s in sets if s.split("=")[0].endswith(".name")}
    base = [s for s in BASE if s.split(".")[0] not in renamed]  # a new entry starts from its own defaults
    cfg = RunConfig().with_overrides([*base, *sets])
    sink = ListSink()
    trainer = build_trainer(cfg, DistContext(), sink, "test", str(tmp_path), None)
    if fit:
        trainer.fit()
    return trainer, sink.messages


def metric(messages: list[dict], name: str) -> list[float]:
    return [v for m in messages if m["type"] == "metrics" for _, n, v, _ in m["rows"] if n == name]


# --- tasks ----------------------------------------------------------------------------------------------
def test_label_smoothing_mixes_the_target_with_the_uniform_distribution():
    import torch

    from studio.core.maths.objectives import Classification, Regression, task_for

    logits, y = torch.randn(5, 4), torch.tensor([0, 1, 2, 3, 0])
    log_p = logits.log_softmax(1)
    want = (0.9 * -log_p[torch.arange(5), y] + 0.1 * -log_p.mean(1)).mean()
    assert torch.allclose(Classification(0.1).loss(logits, y), want, atol=1e-6)
    assert isinstance(task_for({"task": "regression"}), Regression) and isinstance(task_for({}), Classification)


def test_regression_fits_the_noisy_line(tmp_path):
    t, messages = train(tmp_path, "data.name=noisy_line", "model.name=linear_neuron", "optimizer.name=gd",
                        "optimizer.lr=0.5", "train.epochs=200")
    w, b = t.net[1].weight.item(), t.net[1].bias.item()
    assert w == pytest.approx(2.0, abs=0.2) and b == pytest.approx(-1.0, abs=0.1)  # w_gen, b_gen
    assert math.isnan(t.summary["val_acc"]) and t.summary["val_loss"] < 0.6  # noise variance (2·0.3)² = 0.36
    assert metric(messages, "train/acc") == [] and metric(messages, "train/loss")


# --- gradient regularisers ------------------------------------------------------------------------------
def test_gradient_clipping_bounds_the_global_norm():
    import torch
    from torch import nn

    from studio.engine.callbacks.regularisers import GradientClipping

    net = nn.Linear(4, 3)
    (net(torch.randn(8, 4)) * 100).sum().backward()
    before = torch.cat([p.grad.flatten() for p in net.parameters()])
    GradientClipping(0.5).on_after_backward(SimpleNamespace(net=net))
    after = torch.cat([p.grad.flatten() for p in net.parameters()])
    assert after.norm() == pytest.approx(0.5, rel=1e-5)
    assert torch.allclose(after / after.norm(), before / before.norm(), atol=1e-6)  # direction kept


def test_gradient_noise_is_annealed_and_identical_on_every_rank():
    import torch
    from torch import nn

    from studio.engine.callbacks.regularisers import GradientNoise
    from studio.engine.loop.distributed import DistContext

    t = SimpleNamespace(ctx=DistContext(), step=0)
    noise = [GradientNoise(0.3, seed=5), GradientNoise(0.3, seed=5)]
    nets = [nn.Linear(200, 100), nn.Linear(200, 100)]
    for n, net in zip(noise, nets, strict=True):
        n.on_train_start(t)
        t.net = net
        for p in net.parameters():
            p.grad = torch.zeros_like(p)
        n.on_after_backward(t)
    assert torch.equal(nets[0].weight.grad, nets[1].weight.grad)  # same seed → same noise on every rank
    assert nets[0].weight.grad.std().item() == pytest.approx(math.sqrt(0.3), rel=0.03)  # σ² = η/(1+0)^0.55
    assert noise[0].sigma(99) == pytest.approx(math.sqrt(0.3 / 100**0.55))


def test_clipping_and_noise_run_inside_training(tmp_path):
    t, _ = train(tmp_path, "train.grad_clip=0.01", "train.grad_noise=0.01", fit=False)
    kinds = [type(cb).__name__ for cb in t.callbacks]
    assert "GradientClipping" in kinds and "GradientNoise" in kinds
    t.fit()
    assert math.isfinite(t.summary["train_loss"])


# --- stopping rules -------------------------------------------------------------------------------------
def test_early_stopping_waits_patience_epochs_without_min_delta_improvement():
    from studio.engine.callbacks.stopping import EarlyStopping

    stops = []
    t = SimpleNamespace(summary={}, epoch=0, request_stop=stops.append)
    rule = EarlyStopping(patience=2, min_delta=0.05)
    for epoch, val in enumerate([1.0, 0.9, 0.88, 0.87, 0.86]):  # 0.88 and 0.87 improve by < 0.05
        t.epoch, t.summary["val_loss"] = epoch, val
        rule.on_epoch_end(t)
        if stops:
            break
    assert epoch == 3 and "early stopping after epoch 4" in stops[0] and "2 epochs" in stops[0]


def test_early_stopping_ends_a_run_as_finished(tmp_path):
    t, _ = train(tmp_path, "train.epochs=10", "train.early_stop_patience=1", "train.early_stop_min_delta=100")
    assert t.epochs_done == 2 and t.should_stop and not t.stopped_by_user
    assert "early stopping" in t.stop_reason


def test_full_batch_gradient_descent_takes_one_step_per_epoch_and_stops_when_converged(tmp_path):
    t, _ = train(tmp_path, "data.name=noisy_line", "model.name=linear_neuron", "optimizer.name=gd",
                 "optimizer.lr=0.5", "optimizer.tolerance=1e-6", "train.epochs=1000")
    assert t.batch == len(t.train_data) and t.step == t.epochs_done  # one full-batch step per epoch
    assert 5 < t.step < 1000 and t.stop_reason.startswith("converged at step")
    t2, _ = train(tmp_path, "data.name=noisy_line", "model.name=linear_neuron", "optimizer.name=gd",
                  "optimizer.lr=0.5", "train.epochs=30")
    assert t2.step == 30 and not t2.should_stop  # tolerance 0: no check


# --- batch plans and the linear scaling rule ------------------------------------------------------------
def test_batch_plans():
    cfg = RunConfig().with_overrides(["train.epochs=5", "train.batch_size=64", "train.batch_growth=2",
                                      "train.batch_growth_every=2"]).train
    assert plan_batches(1000, cfg, 1) == [64, 64, 128, 128, 256]
    assert plan_batches(1000, cfg, 2) == [32, 32, 64, 64, 128]  # per rank
    assert plan_batches(200, cfg, 1) == [64, 64, 128, 128, 200]  # capped at the data
    assert plan_batches(1000, cfg, 2, full_batch=True) == [500] * 5
    assert steps_per_epoch(1000, 128, 2) == 4
    assert lr_scale(cfg, 512) == 1.0
    cfg.lr_scaling = True
    assert lr_scale(cfg, 512) == 512 / 256


def test_a_growing_batch_takes_fewer_steps_per_epoch(tmp_path):
    t, _ = train(tmp_path, "train.epochs=3", "train.batch_growth=2", "train.batch_growth_every=1")
    n = len(t.train_data)
    assert t.batches == [32, 64, 128]
    assert t.step == t.total_steps == sum(math.ceil(n / b) for b in (32, 64, 128))


def test_epoch_steps_caps_each_epoch_and_every_epoch_still_validates(tmp_path):
    """train.epoch_steps=2: two optimizer steps per epoch (the schedule's and the progress' total too), each epoch
    from its own shuffle of the whole split (other samples each epoch), and each still ends with its validation."""
    assert steps_per_epoch(1000, 128, 1) == 8 and steps_per_epoch(1000, 128, 1, limit=3) == 3
    assert steps_per_epoch(1000, 128, 1, accumulate=2, limit=20) == 4  # a cap above the epoch changes nothing
    seen: list[list[int]] = []
    t, messages = train(tmp_path, "train.epochs=3", "train.epoch_steps=2", "train.metric_interval=1",
                        "schedule.name=cosine", fit=False)
    fetcher = t.train_data.fetcher

    def spy(order, slices, *rest):
        seen.append(sorted(order[s].tolist() for s in slices))
        return fetcher(order, slices, *rest)

    t.train_data.fetcher = spy
    t.fit()
    assert t.step == t.total_steps == 6 and t.epochs_done == 3
    assert [len(batches) for batches in seen] == [2, 2, 2] and seen[0] != seen[1]
    assert len(metric(messages, "val/loss")) == 3
    assert t.lr() == pytest.approx(0.0, abs=1e-9)  # the cosine schedule ended at the capped run's last step


def test_linear_scaling_rule_scales_the_learning_rate(tmp_path):
    t, messages = train(tmp_path, "optimizer.name=sgd", "optimizer.lr=0.1", "train.batch_size=64",
                        "train.lr_scaling=true", "train.base_batch=16", fit=False)
    assert t.lr() == pytest.approx(0.4)
    assert any("linear scaling rule" in m.get("text", "") for m in messages)


def test_ghost_batch_norm_is_used_in_a_run(tmp_path):
    from studio.core.models.ghost_batch_norm import GhostBatchNorm1d

    t, _ = train(tmp_path, "model.batch_norm=true", "train.ghost_batch=8", fit=False)
    assert any(isinstance(m, GhostBatchNorm1d) and m.virtual_batch == 8 for m in t.net.modules())
    t.fit()
    assert math.isfinite(t.summary["train_loss"])


def test_label_smoothing_reaches_the_trainer(tmp_path):
    t, _ = train(tmp_path, "train.label_smoothing=0.2", fit=False)
    assert t.task.label_smoothing == 0.2


# --- two-stage fine-tuning -----------------------------------------------------------------------------
@pytest.fixture()
def tiny_images():
    import torch

    from studio.core.datasets.arrays import ArrayData

    gen = torch.Generator().manual_seed(0)
    x = torch.randint(0, 256, (48, 1, 32, 32), dtype=torch.uint8, generator=gen)
    y = torch.arange(48) % 3
    return ArrayData(x, y, x[:12], y[:12], classes=["a", "b", "c"])


def test_two_stage_fine_tuning(tmp_path, monkeypatch, tiny_images):
    import torch
    import torchvision

    from studio.core.models.transfer import weights_path
    from studio.engine.loop.distributed import DistContext
    from studio.engine.training.worker import build_trainer

    arch = "shufflenet_v2_x0_5"
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    path, _ = weights_path(arch)
    path.parent.mkdir(parents=True)
    torch.save(torchvision.models.get_model(arch, weights=None).state_dict(), path)
    sets = ["model.name=transfer", f"model.arch={arch}", "model.frozen_epochs=1", "model.base_lr_factor=0.1",
            "optimizer.name=sgd", "optimizer.lr=0.05", "optimizer.momentum=0.9", "train.batch_size=16"]

    def run(epochs: int):
        cfg = RunConfig().with_overrides([*sets, f"train.epochs={epochs}"])
        sink = ListSink()
        t = build_trainer(cfg, DistContext(), sink, "test", str(tmp_path), None, data=tiny_images)
        base0 = [p.detach().clone() for p in t.net.base_parameters()]
        head0 = [p.detach().clone() for p in t.net.head_parameters()]
        t.fit()
        moved = lambda before, now: any(not torch.equal(a, b) for a, b in zip(before, now, strict=True))  # noqa: E731
        return t, moved(base0, t.net.base_parameters()), moved(head0, t.net.head_parameters()), sink.messages

    t, base_moved, head_moved, _ = run(1)
    assert head_moved and not base_moved and t.net.base_frozen  # stage 1: only the new head learns
    assert [g["lr"] for g in t.optimizer.param_groups] == pytest.approx([0.05, 0.005])
    t, base_moved, head_moved, messages = run(2)
    assert head_moved and base_moved and not t.net.base_frozen  # stage 2: everything, the base at lr × 0.1
    assert any("stage 2" in m.get("text", "") for m in messages)


# --- divergence -----------------------------------------------------------------------------------------
def test_a_divergent_run_names_the_step_and_learning_rate(tmp_path):
    with pytest.raises(Diverged) as err:
        train(tmp_path, "data.name=noisy_line", "model.name=linear_neuron", "optimizer.name=sgd",
              "optimizer.lr=100", "train.batch_size=8", "train.epochs=20")
    text = str(err.value)
    assert "at step" in text and "learning rate 100" in text and "lower learning rate" in text


def test_newton_refuses_several_processes(tmp_path):
    from studio.core.errors import ConfigError
    from studio.engine.loop.distributed import DistContext
    from studio.engine.training.worker import build_trainer

    cfg = RunConfig().with_overrides(["data.name=moons", "model.name=linear", "optimizer.name=newton"])
    with pytest.raises(ConfigError, match="one process"):
        build_trainer(cfg, DistContext(rank=0, world_size=2), ListSink(), "t", str(tmp_path), None)


def test_a_last_batch_of_one_sample_joins_the_previous_batch(tmp_path):
    assert batch_slices(65, 32) == [slice(0, 32), slice(32, 65)]
    assert batch_slices(66, 32) == [slice(0, 32), slice(32, 64), slice(64, 66)]
    assert batch_slices(1, 32) == [slice(0, 1)]
    # 180 training points (200 less 10 % validation) in batches of 179: batch norm would see one sample
    t, _ = train(tmp_path, "model.batch_norm=true", "train.batch_size=179")
    assert t.step == t.total_steps == 1 and math.isfinite(t.summary["train_loss"])
