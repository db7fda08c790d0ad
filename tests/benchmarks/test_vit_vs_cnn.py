"""ViT against the CNN on the bundled Fashion-MNIST (``fashion_mnist_small``: 10,000 training, 2,000 test images) at
equal training time on the CPU: each model trains with the catalog's defaults (Adam, lr 1e-3, batch 128) for the
same wall-clock budget (``STUDIO_BENCH_SECONDS``, default 60 s, one thread), then its test accuracy is measured.

Run: ``python -m pytest tests/benchmarks/test_vit_vs_cnn.py -m benchmark -s``
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING

import pytest

from studio.core.config import RunConfig
from studio.engine.callbacks.base import Callback
from studio.engine.loop.sinks import NullSink

if TYPE_CHECKING:
    from studio.engine.loop.trainer import Trainer

BUDGET_S = float(os.environ.get("STUDIO_BENCH_SECONDS", "60"))


class TimeBudget(Callback):
    """Stops training once ``seconds`` of it have passed."""

    def __init__(self, seconds: float) -> None:
        self.seconds, self.started = seconds, 0.0

    def on_train_start(self, t: Trainer) -> None:
        self.started = time.perf_counter()

    def on_step_end(self, t: Trainer) -> None:
        if time.perf_counter() - self.started >= self.seconds:
            t.request_stop("time budget")


def train_for(model: str, seconds: float, tmp_path) -> dict[str, float]:
    import torch

    from studio.engine.loop.distributed import DistContext
    from studio.engine.training.worker import build_trainer

    cfg = RunConfig().with_overrides([f"model.name={model}", "train.epochs=1000", "train.histogram_every=0",
                                      "train.trajectory_snapshots=false", "train.attention_every=0"])
    torch.set_num_threads(1)
    trainer = build_trainer(cfg, DistContext(), NullSink(), model, str(tmp_path / model), None)
    budget = TimeBudget(seconds)
    trainer.callbacks.insert(0, budget)
    trainer.fit()
    elapsed = time.perf_counter() - budget.started
    _, accuracy = trainer.evaluate(trainer.test_data)
    params = sum(p.numel() for p in trainer.net.parameters())
    return {"seconds": elapsed, "steps": trainer.step, "epochs": trainer.step / (trainer.total_steps /
                                                                                  cfg.train.epochs),
            "test_acc": accuracy, "params": params}


@pytest.mark.benchmark
def test_vit_against_cnn_at_equal_time(tmp_path):
    results = {m: train_for(m, BUDGET_S, tmp_path) for m in ("vit", "cnn")}
    print(f"\nfashion_mnist_small, {BUDGET_S:.0f} s of training each, one CPU thread, catalog defaults:")
    for model, r in results.items():
        print(f"  {model:4s} {r['params']:>9,} parameters  {r['steps']:5d} steps ({r['epochs']:.1f} epochs) in "
              f"{r['seconds']:.1f} s  test accuracy {r['test_acc']:.4f}")
    vit, cnn = results["vit"]["test_acc"], results["cnn"]["test_acc"]
    rate = {m: r["steps"] / r["seconds"] for m, r in results.items()}
    print(f"  ViT / CNN test accuracy: {vit / cnn:.3f}; steps per second: ViT {rate['vit']:.2f}, CNN "
          f"{rate['cnn']:.2f} ({rate['vit'] / rate['cnn']:.2f}×)")
    assert vit > 0.5  # far above chance (0.10) even on a loaded machine
