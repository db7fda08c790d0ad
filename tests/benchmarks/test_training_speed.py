"""Training speed of the default run: Studio's loop vs a plain PyTorch DataLoader loop, and 1 vs 2 ranks.

Run on demand: ``python -m pytest tests/benchmarks/test_training_speed.py -m benchmark -s``.
Everything is measured side by side in one run; compare ratios, not absolute times, on a shared CPU.
"""

from __future__ import annotations

import json
import time

import pytest

from studio.core.config import RunConfig
from studio.engine.loop.sinks import NullSink
from tests.conftest import run_cli

pytestmark = pytest.mark.benchmark


def plain_loop(epochs: int = 5) -> tuple[float, float]:
    """The textbook loop: float tensors, a shuffling DataLoader, Adam, cross-entropy."""
    import torch
    from torch import nn
    from torch.utils.data import DataLoader, TensorDataset

    from studio.core.datasets.bundled import load_fashion_mnist_small

    torch.manual_seed(0)
    data = load_fashion_mnist_small()
    x = data.x_train.float().div(255).sub(0.2860).div(0.3530)
    xt = data.x_test.float().div(255).sub(0.2860).div(0.3530)
    loader = DataLoader(TensorDataset(x[:9000], data.y_train[:9000]), batch_size=128, shuffle=True)
    model = nn.Sequential(nn.Flatten(), nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                          nn.Linear(512, 10))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    t0 = time.perf_counter()
    for _ in range(epochs):
        for xb, yb in loader:
            loss = nn.functional.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            loss.item()  # what such loops usually do to log
    seconds = time.perf_counter() - t0
    with torch.no_grad():
        acc = (model(xt).argmax(1) == data.y_test).float().mean().item()
    return seconds, acc


def studio_loop() -> tuple[float, float]:
    from studio.engine.loop.distributed import DistContext
    from studio.engine.training.worker import build_trainer

    trainer = build_trainer(RunConfig(), DistContext(), NullSink(), "bench", "/tmp/studio-bench", None)
    summary = trainer.fit()
    return summary["seconds"], summary["test_acc"]


def test_default_run_speed():
    import torch

    torch.set_num_threads(2)
    plain_s, plain_acc = plain_loop()
    studio_s, studio_acc = studio_loop()
    print(f"\nplain PyTorch loop : {plain_s:6.2f} s, test acc {plain_acc:.4f}")
    print(f"Studio trainer     : {studio_s:6.2f} s, test acc {studio_acc:.4f}")
    print(f"speed-up           : {plain_s / studio_s:.2f}x")
    results = {}
    for procs in (1, 2):
        proc = run_cli("train", "--json", "--quiet", "--set", f"hardware.processes={procs}")
        results[procs] = json.loads(proc.stdout.strip().splitlines()[-1])
        r = results[procs]
        print(f"studio train, {procs} process(es): {r['seconds']:6.2f} s training, test acc {r['test_acc']:.4f}")
    print(f"2 vs 1 processes (training time ratio): {results[2]['seconds'] / results[1]['seconds']:.2f}")
    assert studio_acc >= 0.82
