"""Issue 36: drawing a seed group of 10 runs × 20,000 steps as its mean and band must cost no more than drawing the
10 curves. Measured side by side in the curves view (offscreen), each way ``REPEATS`` times (the median): the
request (smoothing, decimation or aggregation, ``setData``) until ``curves_drawn``, and the paint (a grab of the
plots). The load average is printed beside (a shared machine).

Run: ``python -m pytest tests/benchmarks/test_seed_band_draw.py -m benchmark -s``
"""

from __future__ import annotations

import os
import statistics
import time

import numpy as np
import pytest

from studio.gui.plots.curves import CurvesView

SEEDS, STEPS, REPEATS = 10, 20_000, 5


def seed_group() -> tuple[dict, dict]:
    rng = np.random.default_rng(0)
    steps = np.arange(1, STEPS + 1, dtype=float)
    data, params = {}, {}
    for seed in range(SEEDS):
        loss = np.exp(-steps / (4000 * (1 + 0.2 * rng.normal()))) + rng.normal(0, 0.05, STEPS)
        data[f"s{seed}"] = {"train/loss": (steps, loss, 1000.0 + steps / 50)}
        params[f"s{seed}"] = {"model.name": "mlp", "data.name": "moons", "train.seed": seed}
    return data, params


def draw_once(qtbot, view: CurvesView, data: dict, params: dict) -> tuple[float, float]:
    started = time.perf_counter()
    with qtbot.waitSignal(view.curves_drawn, timeout=60_000):
        view.show_runs(data, params=params)
    drawn = time.perf_counter()
    view.graphics.grab()  # paints every plot
    return (drawn - started) * 1000, (time.perf_counter() - drawn) * 1000


@pytest.mark.benchmark
def test_a_band_costs_no_more_than_the_curves_it_stands_for(qtbot) -> None:
    data, params = seed_group()
    view = CurvesView()
    qtbot.addWidget(view)
    view.resize(1200, 800)
    view.show()
    view.smooth_box.setValue(0.6)
    times: dict[str, list[tuple[float, float]]] = {"runs": [], "std": []}
    for _ in range(REPEATS):
        for kind in times:
            view.set_band(kind)
            times[kind].append(draw_once(qtbot, view, data, params))
    med = {k: (statistics.median(t[0] for t in v), statistics.median(t[1] for t in v)) for k, v in times.items()}
    print(f"\n{SEEDS} runs × {STEPS:,} steps, smoothing 0.6, load {os.getloadavg()[0]:.1f}")
    for kind, (request, paint) in med.items():
        print(f"  {'10 curves' if kind == 'runs' else 'mean ± std band':16s} request {request:7.1f} ms, "
              f"paint {paint:6.1f} ms, total {request + paint:7.1f} ms")
    assert sum(med["std"]) <= sum(med["runs"]) * 1.1  # 10 % for the noise of a shared machine
