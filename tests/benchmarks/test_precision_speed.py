"""bf16 against fp32 training steps (train.precision), side by side: step time and memory, as ratios.

Models: an MLP (784→1024→1024→10), the catalog's CNN on 28×28 images, and a Transformer (core/models/transformer.py
``Stack``, d_model 256, 4 layers, 4 heads, 64 tokens). A step is the trainer's: autocast forward + loss, backward,
Adam's step (engine/loop/precision.py). Memory: the bytes autograd saves for backward (the activations,
core/estimates/memory.py's measure; exact) and, on CUDA, torch.cuda.max_memory_allocated over the step.

On a CPU without bfloat16 units (no AVX512_BF16 / AMX) bf16 is emulated and usually slower than fp32; the test
prints which this CPU has and says so when bf16 is slower here. GPU variant (fp16 with its gradient scaler too):
skipped without CUDA.

Run: ``python -m pytest tests/benchmarks/test_precision_speed.py -m benchmark -s``.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from studio.core.models import MODELS

if TYPE_CHECKING:
    import torch
    from torch import nn

STEPS, WARMUP = 12, 3


def cases(device: torch.device) -> dict[str, Callable[[], tuple[nn.Module, torch.Tensor, torch.Tensor]]]:
    import torch
    from torch import nn

    def mlp():
        net = nn.Sequential(nn.Flatten(), nn.Linear(784, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(),
                            nn.Linear(1024, 10))
        return net, torch.randn(256, 1, 28, 28), torch.randint(0, 10, (256,))

    def cnn():
        return MODELS.build("cnn", input_shape=(1, 28, 28), num_classes=10), torch.randn(64, 1, 28, 28), \
            torch.randint(0, 10, (64,))

    def transformer():
        from tests.benchmarks.token_transformer import TokenTransformer

        return TokenTransformer(), torch.randint(0, 1000, (16, 64)), torch.randint(0, 1000, (16 * 64,))

    return {"mlp": mlp, "cnn": cnn, "transformer": transformer}


def step_time(build: Callable, precision: str, device: torch.device) -> tuple[float, int, int | None]:
    """(median seconds per step, activation bytes saved for backward, CUDA peak bytes or None)."""
    import torch
    from torch import nn

    from studio.core.estimates.memory import measure_step
    from studio.engine.loop.precision import Precision

    torch.manual_seed(0)
    net, x, y = build()
    net, x, y = net.to(device), x.to(device), y.to(device)
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-4)
    prec = Precision(precision, device)
    loss_fn = nn.functional.cross_entropy

    def step() -> None:
        optimizer.zero_grad(set_to_none=True)
        with prec.autocast():
            loss = loss_fn(net(x), y)
        prec.backward(loss)
        prec.step(optimizer)

    times = []
    for i in range(WARMUP + STEPS):
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        t0 = time.perf_counter()
        step()
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        if i >= WARMUP:
            times.append(time.perf_counter() - t0)
    measured = measure_step(net, optimizer, x, y, loss_fn, "fp32" if precision == "fp16" and device.type == "cpu"
                            else precision)
    peak = measured["peak"] if device.type == "cuda" else None
    return statistics.median(times), int(measured["activations"] or 0), peak


def bf16_units() -> str:
    try:
        flags = open("/proc/cpuinfo", encoding="ascii", errors="replace").read()
    except OSError:
        return "unknown"
    found = [f for f in ("avx512_bf16", "amx_bf16") if f in flags]
    return ", ".join(found) if found else "none"


def report(device: torch.device, precisions: tuple[str, ...]) -> dict[str, dict[str, float]]:
    import torch

    print(f"\n{device.type}: {torch.get_num_threads()} threads; bfloat16 units: "
          f"{bf16_units() if device.type == 'cpu' else torch.cuda.get_device_name(device)}")
    head = f"{'model':12}" + "".join(f"{p + ' ms':>10}" for p in precisions)
    head += "".join(f"{p + '/fp32 t':>13}{p + '/fp32 act':>15}" for p in precisions[1:])
    print(head)
    ratios: dict[str, dict[str, float]] = {}
    for name, build in cases(device).items():
        got = {p: step_time(build, p, device) for p in precisions}
        base_t, base_act, _ = got["fp32"]
        line = f"{name:12}" + "".join(f"{got[p][0] * 1e3:10.1f}" for p in precisions)
        for p in precisions[1:]:
            ratios.setdefault(name, {})[p] = got[p][0] / base_t
            line += f"{got[p][0] / base_t:13.2f}{got[p][1] / base_act:15.2f}"
        print(line)
        for p in precisions:
            peak = got[p][2]
            if peak is not None:
                print(f"{'':12}{p}: CUDA peak over a step {peak / 2**20:,.1f} MiB, activations "
                      f"{got[p][1] / 2**20:,.1f} MiB")
    slower = [n for n, r in ratios.items() if r.get("bf16", 0) > 1.0]
    if slower:
        why = ("no bfloat16 units: emulated" if bf16_units() == "none" else
               "bfloat16 units present, but the casts cost more than the kernels save at this size")
        print(f"bf16 is slower than fp32 here for: {', '.join(slower)} ({why})")
    return ratios


@pytest.mark.benchmark
def test_bf16_against_fp32_on_the_cpu():
    import torch

    ratios = report(torch.device("cpu"), ("fp32", "bf16"))
    assert set(ratios) == {"mlp", "cnn", "transformer"} and all(r["bf16"] > 0 for r in ratios.values())


@pytest.mark.benchmark
@pytest.mark.cuda(reason="the GPU variant needs CUDA")
def test_bf16_and_fp16_against_fp32_on_the_gpu():
    import torch

    ratios = report(torch.device("cuda"), ("fp32", "bf16", "fp16"))
    assert all(r["bf16"] > 0 and r["fp16"] > 0 for r in ratios.values())


if __name__ == "__main__":
    import torch

    report(torch.device("cpu"), ("fp32", "bf16"))
    if torch.cuda.is_available():
        report(torch.device("cuda"), ("fp32", "bf16", "fp16"))
