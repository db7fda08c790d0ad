"""What the run folder's own metric record (``metrics.csv``, core/runs/metric_log.py) costs the training step:
the default MLP (512-512) trained for steps with rank 0's store writes as a run makes them (4 values every
``train.metric_interval`` = 20 steps, through ``RunStore.log_metrics``), with the file record and without it
(``metric_log.append`` replaced by a no-op), interleaved, side by side in one run, one CPU thread.

Run: ``python -m pytest tests/benchmarks/test_metric_log_cost.py -m benchmark -s``
"""

from __future__ import annotations

import time

import pytest

from studio.core.config import RunConfig
from studio.core.models import MODELS
from studio.core.runs import store as store_module
from studio.core.runs.store import RunStore

NAMES = ("train/loss", "train/acc", "lr", "throughput")


@pytest.mark.benchmark
def test_metric_record_against_the_training_step(tmp_path, monkeypatch):
    import torch

    torch.set_num_threads(1)
    cfg = RunConfig()
    net = MODELS.build(cfg.model.name, input_shape=(1, 28, 28), num_classes=10, **cfg.model.params)
    x, y = torch.randn(cfg.train.batch_size, 1, 28, 28), torch.randint(0, 10, (cfg.train.batch_size,))
    opt = torch.optim.Adam(net.parameters())
    store = RunStore(tmp_path)
    run = store.create_run(cfg, "bench")
    every = cfg.train.metric_interval
    real_append = store_module.metric_log.append
    step_no = 0

    def steps(n: int) -> float:
        nonlocal step_no
        t = time.perf_counter()
        for _ in range(n):
            loss = torch.nn.functional.cross_entropy(net(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step_no += 1
            if step_no % every == 0:
                now = time.time()
                store.log_metrics(run.id, [(step_no, name, float(loss.detach()), now) for name in NAMES])
        return (time.perf_counter() - t) / n

    def calls(n: int) -> float:
        t = time.perf_counter()
        for i in range(n):
            store.log_metrics(run.id, [(10**6 + i, name, 0.5, 0.0) for name in NAMES])
        return (time.perf_counter() - t) / n

    steps(every)
    with_file: list[float] = []
    without: list[float] = []
    call_with: list[float] = []
    call_without: list[float] = []
    for i in range(6):  # interleaved, each first in every other round
        for record in ((True, False) if i % 2 else (False, True)):
            monkeypatch.setattr(store_module.metric_log, "append",
                                real_append if record else lambda run_dir, rows: None)
            (with_file if record else without).append(steps(4 * every))
            (call_with if record else call_without).append(calls(50))
    monkeypatch.setattr(store_module.metric_log, "append", real_append)
    a, b = min(with_file), min(without)
    ca, cb = min(call_with), min(call_without)
    print(f"\ndefault MLP, 1 thread, 4 values every {every} steps: a training step {b * 1000:.3f} ms without the "
          f"file record, {a * 1000:.3f} ms with it: ratio {a / b:.3f}; one log_metrics call {cb * 1000:.3f} ms "
          f"without, {ca * 1000:.3f} ms with (+{(ca - cb) * 1e6:.0f} µs, {(ca - cb) / (every * b) * 100:.3f} % of "
          f"{every} steps)")
    assert (ca - cb) / (every * b) < 0.01, "the metric record must cost under 1 % of the steps between two writes"
    assert a / b < 1.15, "the step time with the record must be within noise of the step time without it"
    store.close()
