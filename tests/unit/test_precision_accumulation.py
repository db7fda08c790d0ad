"""Mixed precision (train.precision) and gradient accumulation (train.accumulate_steps): the config's sentences,
the accumulated gradient against one big batch, step counts in optimizer steps, bf16 autocast, the fp16 scaler's
state in checkpoints, a resume from a step boundary, and one all-reduce per optimizer step under DDP (2 gloo
ranks). Runs go through the worker's ``build_trainer`` in-process."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import pytest

from studio.core.config import RunConfig, train_params
from studio.core.config.global_batch import global_batch, global_batch_text
from studio.core.errors import ConfigError
from studio.engine.callbacks.base import Callback
from studio.engine.loop.batching import accumulation_groups, steps_per_epoch
from studio.engine.loop.sinks import NullSink

if TYPE_CHECKING:
    from studio.engine.loop.distributed import DistContext

BASE = ["data.name=moons", "data.n_samples=240", "model.name=mlp", "model.widths=16", "train.epochs=2",
        "train.batch_size=16", "train.metric_interval=1", "train.histogram_every=0",
        "train.trajectory_snapshots=false", "optimizer.name=sgd", "optimizer.lr=0.1"]


def make(tmp_path, *sets: str, resume_from: str | None = None, ctx: DistContext | None = None):
    from studio.engine.loop.distributed import DistContext
    from studio.engine.training.worker import build_trainer

    cfg = RunConfig().with_overrides([*BASE, *sets])
    return build_trainer(cfg, ctx or DistContext(), NullSink(), "t", str(tmp_path), None, resume_from=resume_from)


# --- config ------------------------------------------------------------------------------------------------
def test_fp16_on_the_cpu_is_refused_in_one_sentence():
    with pytest.raises(ConfigError) as err:
        RunConfig().with_overrides(["train.precision=fp16"])
    text = str(err.value)
    assert "fp16 needs a CUDA GPU" in text and "bf16" in text and text.count(". ") == 0


def test_precision_choices_accumulation_limits_and_whole_batch_optimizers():
    assert RunConfig().with_overrides(["train.precision=fp16", "hardware.device=cuda"]).train.precision == "fp16"
    assert RunConfig().with_overrides(["train.precision=bf16"]).train.precision == "bf16"
    with pytest.raises(ConfigError, match="train.precision must be one of fp32, bf16, fp16"):
        RunConfig().with_overrides(["train.precision=fp8"])
    with pytest.raises(ConfigError, match="accumulate_steps must be between 1"):
        RunConfig().with_overrides(["train.accumulate_steps=0"])
    with pytest.raises(ConfigError, match="optimizer gd takes whole-batch steps"):
        RunConfig().with_overrides(["optimizer.name=gd", "train.accumulate_steps=2"])
    form = {p.name: p for p in train_params()}
    assert form["precision"].kind == "choice" and form["precision"].choices == ("fp32", "bf16", "fp16")
    assert "may be slower" in form["precision"].help


def test_global_batch_is_batch_times_k_times_ranks():
    cfg = RunConfig().with_overrides(["train.batch_size=128", "train.accumulate_steps=4", "hardware.processes=2"])
    assert global_batch(cfg) == (64, 4, 2, 512)
    assert "64 × 4 × 2 = 512" in global_batch_text(cfg)


# --- accumulation -----------------------------------------------------------------------------------------
def test_accumulation_groups_and_steps_per_epoch_count_optimizer_steps():
    assert accumulation_groups(10, 4) == [(0, 4), (4, 8), (8, 10)]
    assert accumulation_groups(3, 1) == [(0, 1), (1, 2), (2, 3)]
    assert steps_per_epoch(1000, 100, 1, 4) == 3 and steps_per_epoch(1000, 100, 1) == 10


class GradTap(Callback):
    def __init__(self) -> None:
        import torch

        self.grads: list[list[torch.Tensor]] = []

    def on_after_backward(self, t) -> None:
        self.grads.append([p.grad.detach().clone() for p in t.net.parameters()])


def test_the_gradient_of_k_micro_batches_equals_one_batch_of_k_times_b(tmp_path):
    import torch

    t = make(tmp_path, "train.accumulate_steps=4")
    tap = GradTap()
    t.callbacks.insert(0, tap)
    start = {k: v.clone() for k, v in t.net.state_dict().items()}
    x, y = t.train_data.batch(torch.arange(32))
    t.train_step(((x[i:i + 8], y[i:i + 8]) for i in range(0, 32, 8)), [8, 8, 8, 8])
    t.net.load_state_dict(start)
    t.train_step(iter([(x, y)]), [32])
    accumulated, whole = tap.grads
    for a, b in zip(accumulated, whole, strict=True):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6)
    assert any(g.abs().sum() > 0 for g in whole)


def test_steps_schedule_and_metrics_count_optimizer_steps(tmp_path):
    one, four = make(tmp_path / "a"), make(tmp_path / "b", "train.accumulate_steps=4")
    n_micro = math.ceil(len(one.train_data) / 16)
    assert one.total_steps == 2 * n_micro and four.total_steps == 2 * math.ceil(n_micro / 4)
    four.fit()
    assert four.step == four.total_steps
    assert four.scheduler.last_epoch == four.total_steps  # one schedule step per optimizer step
    assert four.global_batch == 64 and four.summary["steps"] == four.total_steps


class StopAt(Callback):
    def __init__(self, step: int) -> None:
        self.at = step

    def on_step_end(self, t) -> None:
        if t.step == self.at:
            t.request_stop("test", by_user=True)


def test_resume_mid_epoch_continues_from_a_step_boundary_as_if_never_stopped(tmp_path):
    import torch

    whole = make(tmp_path / "whole", "train.accumulate_steps=3", "train.epochs=1")
    whole.fit()
    part = make(tmp_path / "part", "train.accumulate_steps=3", "train.epochs=1")
    part.callbacks.insert(0, StopAt(2))
    part.fit()
    saved = torch.load(tmp_path / "part" / "checkpoints" / "final.pt", weights_only=True)
    assert saved["step"] == 2 and saved["resume"]["position"]["batch"] == 6  # 2 steps × 3 micro-batches
    resumed = make(tmp_path / "part", "train.accumulate_steps=3", "train.epochs=1",
                   resume_from=str(tmp_path / "part" / "checkpoints" / "final.pt"))
    resumed.fit()
    assert resumed.step == whole.step
    for a, b in zip(resumed.net.parameters(), whole.net.parameters(), strict=True):
        torch.testing.assert_close(a, b)


# --- precision --------------------------------------------------------------------------------------------
class DtypeTap(Callback):
    def __init__(self) -> None:
        import torch

        self.dtypes: set[torch.dtype] = set()

    def on_train_start(self, t) -> None:
        import torch

        first = next(m for m in t.net.modules() if isinstance(m, torch.nn.Linear))
        first.register_forward_hook(lambda _m, _i, out: self.dtypes.add(out.dtype))


def test_bf16_autocasts_the_forward_and_keeps_float32_weights_and_a_finite_loss(tmp_path):
    import torch

    t = make(tmp_path, "train.precision=bf16", "optimizer.name=adam", "optimizer.lr=0.01")
    tap = DtypeTap()
    t.callbacks.insert(0, tap)
    summary = t.fit()
    assert torch.bfloat16 in tap.dtypes
    assert all(p.dtype == torch.float32 for p in t.net.parameters())
    assert math.isfinite(summary["train_loss"]) and summary["test_acc"] > 0.7


def test_the_scaler_state_is_saved_and_restored(tmp_path):
    t = make(tmp_path)
    assert t.precision.scaler is None and t.precision.state_dict() == {}
    from studio.engine.loop.resume import training_state

    assert training_state(t, [])["grad_scaler"] == {}  # fp32/bf16: nothing to keep


@pytest.mark.cuda(reason="fp16 with a gradient scaler needs CUDA")
def test_fp16_on_cuda_trains_with_a_scaler_and_a_resume_keeps_its_scale(tmp_path):
    import torch

    t = make(tmp_path, "train.precision=fp16", "hardware.device=cuda", "train.epochs=1")
    t.fit()
    scale = t.precision.scaler.get_scale()
    saved = torch.load(tmp_path / "checkpoints" / "final.pt", weights_only=True)
    assert saved["resume"]["grad_scaler"]["scale"] == scale
    resumed = make(tmp_path, "train.precision=fp16", "hardware.device=cuda", "train.epochs=2",
                   resume_from=str(tmp_path / "checkpoints" / "final.pt"))
    assert resumed.precision.scaler.get_scale() == scale


def test_the_linear_scaling_rule_uses_the_global_batch(tmp_path):
    t = make(tmp_path, "train.lr_scaling=true", "train.base_batch=16", "train.accumulate_steps=4")
    assert t.lr() == pytest.approx(0.1 * 4)  # 16 × 4 micro-batches = 64 samples per step: 4 × the base batch
