"""Training speed of the default run: Studio's loop vs the fastest honest plain PyTorch loop (data held as
normalised tensors, batches gathered by a shuffled index, the loss read every ``metric_interval`` steps as Studio
reads it) and the textbook DataLoader loop, interleaved; then 1 vs 2 ranks.

Run on demand: ``python -m pytest tests/benchmarks/test_training_speed.py -m benchmark -s``.
Everything is measured side by side in one run; compare ratios, not absolute times, on a shared CPU.
"""

from __future__ import annotations

import json
import statistics
import time

import pytest

from studio.core.config import RunConfig
from studio.engine.loop.sinks import NullSink
from tests.conftest import run_cli

pytestmark = pytest.mark.benchmark
ROUNDS = 3


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


def _plain_set_up():
    """(data, normalised training inputs and labels of the first 9,000, normalised test inputs, the MLP), seeded."""
    import torch
    from torch import nn

    from studio.core.datasets.bundled import load_fashion_mnist_small

    torch.manual_seed(0)
    data = load_fashion_mnist_small()
    x = data.x_train[:9000].float().div(255).sub(0.2860).div(0.3530)
    xt = data.x_test.float().div(255).sub(0.2860).div(0.3530)
    model = nn.Sequential(nn.Flatten(), nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                          nn.Linear(512, 10))
    return data, x, data.y_train[:9000], xt, model


def fast_plain_loop(epochs: int = 5, read_every: int = 20, fused: bool = False) -> tuple[float, float]:
    """The fastest honest plain loop: the same data, model, optimizer and batches, without a DataLoader (float
    tensors normalised once, each epoch's order a ``randperm``, a batch gathered by index) and the loss read every
    ``read_every`` steps (Studio's ``train.metric_interval``) rather than every step. ``fused``: Adam's fused kernel,
    which Studio picks for Adam (core/optim/builders.py) and a plain loop gets by asking for it."""
    import torch
    from torch import nn

    data, x, y, xt, model = _plain_set_up()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, fused=fused)
    step = 0
    t0 = time.perf_counter()
    for _ in range(epochs):
        order = torch.randperm(len(x))
        for start in range(0, len(x), 128):
            idx = order[start:start + 128]
            loss = nn.functional.cross_entropy(model(x[idx]), y[idx])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            step += 1
            if step % read_every == 0:
                loss.item()
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


def race(rounds: int = ROUNDS) -> dict[str, list[tuple[float, float]]]:
    """{loop: [(seconds, test accuracy) per round]}, the loops taking turns in each round (same load for all)."""
    loops = {"fastest plain loop": fast_plain_loop, "textbook DataLoader loop": plain_loop,
             "fastest plain, fused Adam": lambda: fast_plain_loop(fused=True), "Studio trainer": studio_loop}
    out: dict[str, list[tuple[float, float]]] = {name: [] for name in loops}
    for _ in range(rounds):
        for name, loop in loops.items():
            out[name].append(loop())
    return out


def test_default_run_speed():
    import os

    import torch

    torch.set_num_threads(1)  # on a shared 2-core machine two spin-waiting threads measure the others' load
    times = race()
    fastest = statistics.median(s for s, _ in times["fastest plain loop"])
    print(f"\nload average {os.getloadavg()[0]:.1f}; {ROUNDS} interleaved rounds, medians:")
    for name, runs in times.items():
        seconds = statistics.median(s for s, _ in runs)
        print(f"{name:26}: {seconds:6.2f} s (each {', '.join(f'{s:.2f}' for s, _ in runs)}), test acc "
              f"{runs[0][1]:.4f}; the fastest plain loop is ×{fastest / seconds:.2f} its speed")
    studio_acc = times["Studio trainer"][0][1]
    results = {}
    for procs in (1, 2):
        proc = run_cli("train", "--json", "--quiet", "--set", f"hardware.processes={procs}")
        results[procs] = json.loads(proc.stdout.strip().splitlines()[-1])
        r = results[procs]
        print(f"studio train, {procs} process(es): {r['seconds']:6.2f} s training, test acc {r['test_acc']:.4f}")
    print(f"2 vs 1 processes (training time ratio): {results[2]['seconds'] / results[1]['seconds']:.2f}")
    assert studio_acc >= 0.82


def plain_loop_writing_tensorboard(logdir: str, epochs: int = 5) -> float:
    """The fastest plain loop reading the loss and the batch accuracy every step and writing both, the learning
    rate and the throughput to TensorBoard every step (``SummaryWriter.add_scalar``, flushed and closed at the end)."""
    import torch
    from torch import nn
    from torch.utils.tensorboard import SummaryWriter

    _, x, y, _, model = _plain_set_up()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    writer = SummaryWriter(logdir)
    step, t0 = 0, time.perf_counter()
    for _ in range(epochs):
        order = torch.randperm(len(x))
        for start in range(0, len(x), 128):
            idx = order[start:start + 128]
            out = model(x[idx])
            loss = nn.functional.cross_entropy(out, y[idx])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            step += 1
            writer.add_scalar("train/loss", loss.item(), step)
            writer.add_scalar("train/acc", (out.argmax(1) == y[idx]).float().mean().item(), step)
            writer.add_scalar("lr", opt.param_groups[0]["lr"], step)
            writer.add_scalar("throughput", step * 128 / (time.perf_counter() - t0), step)
    writer.close()
    return time.perf_counter() - t0


def studio_loop_logging_every_step(home: str) -> tuple[float, int]:
    """Studio's trainer with ``train.metric_interval=1``, rank 0 writing the run store as a real run does
    (``StoreSink``: the SQLite rows and curve chunks, the run folder's metrics.csv). (seconds, values logged)"""
    from studio.core.runs.store import RunStore
    from studio.engine.loop.distributed import DistContext
    from studio.engine.loop.sinks import StoreSink
    from studio.engine.training.worker import build_trainer

    cfg = RunConfig().with_overrides(["train.metric_interval=1"])
    store = RunStore(home)
    run = store.create_run(cfg, "bench")
    trainer = build_trainer(cfg, DistContext(), StoreSink(store), run.id, str(run.dir), None)
    summary = trainer.fit()
    values = len(store.recent_metric_rows(run.id, 0))
    store.close()
    return summary["seconds"], values


def test_per_step_logging_against_a_loop_writing_tensorboard(tmp_path):
    import os

    import torch

    torch.set_num_threads(1)
    loops = {"plain loop + TensorBoard every step": lambda i: plain_loop_writing_tensorboard(str(tmp_path / f"tb{i}")),
             "Studio, metric_interval=1 + store": lambda i: studio_loop_logging_every_step(str(tmp_path / f"s{i}"))[0]}
    times: dict[str, list[float]] = {name: [] for name in loops}
    for i in range(ROUNDS):
        for name, loop in loops.items():
            times[name].append(loop(i))
    tb = statistics.median(times["plain loop + TensorBoard every step"])
    values = studio_loop_logging_every_step(str(tmp_path / "count"))[1]
    print(f"\nload average {os.getloadavg()[0]:.1f}; {ROUNDS} interleaved rounds, medians; the TensorBoard loop "
          f"writes 4 values a step (1,420), Studio {values:,}:")
    for name, runs in times.items():
        seconds = statistics.median(runs)
        print(f"{name:36}: {seconds:6.2f} s (each {', '.join(f'{s:.2f}' for s in runs)}); ×{tb / seconds:.2f} the "
              "TensorBoard loop's speed")
