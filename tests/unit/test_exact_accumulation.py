"""Gradient accumulation is exact: k micro-batches of B samples train as one batch of kB, step for step, also when
the epoch's last step has a short micro-batch (each micro-batch's mean loss is weighted by its share of the step's
samples, not by 1/k, which counted the short batch's samples up to B/size times). Single process here; DDP in
tests/integration/test_accumulation_ddp.py."""

from __future__ import annotations

import pytest

from studio.engine.callbacks.base import Callback
from tests.unit.test_precision_accumulation import make

MICRO, K = 10, 4  # 216 training samples: 5 steps of 40, then one of 16 = micro-batches of 10 and 6


class StepTap(Callback):
    """The flat weights and the epoch's running loss sum after every optimizer step."""

    def __init__(self) -> None:
        self.weights: list = []
        self.loss_sums: list[float] = []

    def on_step_end(self, t) -> None:
        import torch

        self.weights.append(torch.cat([p.detach().reshape(-1).clone() for p in t.net.parameters()]))
        self.loss_sums.append(float(t.epoch_sums[0]))


def curves(tmp_path, *sets: str) -> StepTap:
    t = make(tmp_path, "optimizer.name=adam", "optimizer.lr=0.01", *sets)
    tap = StepTap()
    t.callbacks.insert(0, tap)
    t.fit()
    return tap


def test_k_micro_batches_with_a_short_last_one_train_as_one_batch_of_k_times_b(tmp_path):
    import torch

    big = curves(tmp_path / "big", f"train.batch_size={MICRO * K}")
    accumulated = curves(tmp_path / "acc", f"train.batch_size={MICRO}", f"train.accumulate_steps={K}")
    assert len(big.weights) == len(accumulated.weights) == 2 * 6  # 2 epochs of 6 steps, the 6th one short
    for step, (a, b) in enumerate(zip(accumulated.weights, big.weights, strict=True)):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6, msg=lambda m, s=step: f"step {s + 1}: {m}")
    assert accumulated.loss_sums == pytest.approx(big.loss_sums, rel=1e-5)


def test_the_short_micro_batch_changes_the_step_so_the_comparison_can_fail(tmp_path):
    """The same runs with the short micro-batch's samples weighted 1/k each (the old rule) part after step 5."""
    import torch

    from studio.engine.loop.trainer import Trainer

    class OldRule(Trainer):
        def train_step(self, micro_batches, sizes):  # every micro-batch weighted 1/count, whatever its size
            return super().train_step(micro_batches, [1] * len(sizes))

    big = curves(tmp_path / "big", f"train.batch_size={MICRO * K}")
    t = make(tmp_path / "old", "optimizer.name=adam", "optimizer.lr=0.01", f"train.batch_size={MICRO}",
             f"train.accumulate_steps={K}")
    t.__class__ = OldRule
    tap = StepTap()
    t.callbacks.insert(0, tap)
    t.fit()
    torch.testing.assert_close(tap.weights[4], big.weights[4], rtol=1e-5, atol=1e-6)  # full steps agree
    assert not torch.allclose(tap.weights[5], big.weights[5], rtol=1e-4, atol=1e-5)  # the short step does not
