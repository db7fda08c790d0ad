"""Issue 33.6: the read-out at the pointer (``CurveModel.readout``) runs on every mouse move over a plot, on the GUI
thread, at full resolution. Measured side by side in one run, for the 12 runs it names × 2 lines (train and
validation loss) of ``STUDIO_BENCH_STEPS`` points each (default 1,000,000): the read-out per move on the step and
wall-time axes (a binary search over the ordered steps or wall times), on the epoch axis (every point compared),
and the baseline, a full scan of every point. The load average is printed beside (a shared machine).

Run: ``python -m pytest tests/benchmarks/test_curve_readout.py -m benchmark -s``
"""

from __future__ import annotations

import os
import time

import numpy as np
import pytest

from studio.gui.plots.curve_model import READOUT_RUNS, CurveModel

STEPS = int(os.environ.get("STUDIO_BENCH_STEPS", "1000000"))
MOVES = 30


def model_of(steps: int) -> CurveModel:
    model = CurveModel()
    rng = np.random.default_rng(0)
    s = np.arange(1, steps + 1, dtype=float)
    data = {}
    for i in range(READOUT_RUNS):
        data[f"r{i}"] = {"train/loss": (s, rng.random(steps), 1.7e9 + 0.05 * s),
                         "val/loss": (s[::1000], rng.random(len(s[::1000])), 1.7e9 + 0.05 * s[::1000])}
    model.show(data, batch_sizes={k: 32 for k in data})
    return model


def per_move(action, xs) -> float:
    started = time.perf_counter()
    for x in xs:
        action(float(x))
    return (time.perf_counter() - started) / len(xs) * 1000


def full_scan(model: CurveModel, x: float) -> list[float]:
    """The baseline: every point of every line compared with the pointer's x."""
    out = []
    for run_id in model.order[:READOUT_RUNS]:
        for name in ("train/loss", "val/loss"):
            s = model.series[run_id][name]
            xs = model.x_values(run_id, s)
            out.append(float(s.values[int(np.argmin(np.abs(xs - x)))]))
    return out


@pytest.mark.benchmark
def test_the_readout_keeps_up_with_the_pointer():
    model = model_of(STEPS)
    xs = np.linspace(1, STEPS, MOVES)
    step_ms = per_move(lambda x: model.readout("loss", x), xs)
    scan_ms = per_move(lambda x: full_scan(model, x), xs)
    assert [r.value for r in model.readout("loss", xs[7])] == full_scan(model, xs[7])  # the same values
    model.set_x_mode("wall")
    wall_ms = per_move(lambda x: model.readout("loss", x), 0.05 * xs)
    model.set_x_mode("epoch")  # no epoch ends logged here: every point is compared, and none is found
    epoch_ms = per_move(lambda x: model.readout("loss", x), xs / STEPS)
    print(f"\nread-out per pointer move, {READOUT_RUNS} runs × 2 lines × {STEPS:,} points "
          f"(load {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs):\n"
          f"  step axis (binary search)        {step_ms:8.2f} ms\n"
          f"  full scan (the baseline)         {scan_ms:8.2f} ms   ({scan_ms / step_ms:.0f}× slower)\n"
          f"  wall-time axis (binary search)   {wall_ms:8.2f} ms\n"
          f"  epoch axis (every point)         {epoch_ms:8.2f} ms")
    assert step_ms < scan_ms
