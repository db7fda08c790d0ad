"""What the weight/gradient histograms cost (``train.histogram_every``, default 100): one record of every tensor
of the default MLP (512-512, 0.67 M parameters) against one training step, side by side, one CPU thread.

Run: ``python -m pytest tests/benchmarks/test_histogram_cost.py -m benchmark -s``
"""

from __future__ import annotations

import time

import pytest

from studio.core.config import RunConfig
from studio.core.models import MODELS


@pytest.mark.benchmark
def test_a_histogram_record_against_a_training_step():
    import torch

    from studio.engine.callbacks.histograms import records_of

    torch.set_num_threads(1)
    cfg = RunConfig()
    net = MODELS.build(cfg.model.name, input_shape=(1, 28, 28), num_classes=10, **cfg.model.params)
    x, y = torch.randn(cfg.train.batch_size, 1, 28, 28), torch.randint(0, 10, (cfg.train.batch_size,))
    opt = torch.optim.Adam(net.parameters())

    def step() -> None:
        loss = torch.nn.functional.cross_entropy(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()

    for _ in range(5):
        step()
    step_s, record_s = [], []
    for _ in range(3):  # interleaved
        t = time.perf_counter()
        for _ in range(30):
            step()
        step_s.append((time.perf_counter() - t) / 30)
        t = time.perf_counter()
        for _ in range(10):
            records = records_of(net, 0)
        record_s.append((time.perf_counter() - t) / 10)
    s, r = min(step_s), min(record_s)
    every = cfg.train.histogram_every
    print(f"\ndefault MLP, 1 thread: a training step {s * 1000:.2f} ms, a histogram record ({len(records)} "
          f"histograms) {r * 1000:.2f} ms: every {every} steps costs {r / (every * s) * 100:.2f} % of training")
    assert len(records) == 2 * sum(1 for _ in net.parameters())
