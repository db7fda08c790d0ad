"""A 41×41 filter-normalised landscape of the bundled MLP (784-512-512-10) on 2,000 samples: the fast
evaluator (vmap over stacked parameter sets + the affine first layer) against the sequential reference
(set the weights, run the data, per point), measured side by side in one run.

The grid is cut into blocks of rows and the evaluators take turns on each block, so a change in the
machine's load during the run hits all of them alike. Run with ``pytest -m benchmark -s``.
"""

from __future__ import annotations

import platform
import time
from typing import TYPE_CHECKING

import numpy as np
import pytest

from studio.core.config import Choice

if TYPE_CHECKING:
    import torch

RESOLUTION, SAMPLES, BLOCKS = 41, 2000, 6


def _setup(device: torch.device):
    import torch

    from studio.core.config.data_loading import load_dataset
    from studio.core.landscape.directions import normalized_directions, parameters_of
    from studio.core.maths.normalise import stats
    from studio.core.models.builders import build_mlp

    data = load_dataset(Choice("fashion_mnist_small"))
    x = data.x_train[:SAMPLES]
    mean, std = stats(data.x_train)
    x = ((x.float() / 255 - mean) / std).to(device)
    y = data.y_train[:SAMPLES].to(device)
    torch.manual_seed(0)
    model = build_mlp((1, 28, 28), 10, widths=[512, 512]).to(device).eval()
    w = parameters_of(model)
    return model, w, normalized_directions(w, 2, seed=0), x, y


def _sync(device: torch.device) -> None:
    import torch

    if device.type == "cuda":
        torch.cuda.synchronize()


def _race(device: torch.device, evaluators: dict) -> dict[str, tuple[float, np.ndarray]]:
    from studio.core.landscape.surface import grid_coefficients

    model, w, dirs, x, y = _setup(device)
    grid = np.linspace(-1, 1, RESOLUTION)
    for fn in evaluators.values():  # warm-up (vmap tracing, kernels, caches) on a few points
        fn(model, w, dirs, grid_coefficients(grid[:2], grid[:2]), x, y)
    seconds = dict.fromkeys(evaluators, 0.0)
    losses: dict[str, list[np.ndarray]] = {name: [] for name in evaluators}
    for rows in np.array_split(grid, BLOCKS):
        coeffs = grid_coefficients(grid, rows)
        for name, fn in evaluators.items():
            _sync(device)
            t0 = time.perf_counter()
            loss, _ = fn(model, w, dirs, coeffs, x, y)
            _sync(device)
            seconds[name] += time.perf_counter() - t0
            losses[name].append(loss)
    return {name: (seconds[name], np.concatenate(losses[name])) for name in evaluators}


def _report(device: torch.device, results: dict) -> None:
    import torch

    points = RESOLUTION * RESOLUTION
    base = results["sequential"][0]
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else f"{platform.processor() or 'CPU'}"
    print(f"\n{RESOLUTION}×{RESOLUTION} grid, MLP 784-512-512-10, {SAMPLES} samples on {device.type} ({name}, "
          f"{torch.get_num_threads()} threads)")
    for key, (secs, loss) in results.items():
        diff = np.abs(loss - results["sequential"][1]).max()
        print(f"  {key:<24} {secs:8.2f} s  {points / secs:8.1f} points/s  ×{base / secs:5.2f} vs sequential  "
              f"max |Δloss| {diff:.2e}")


@pytest.mark.benchmark
def test_fast_grid_against_the_sequential_reference_cpu():
    import torch

    from studio.core.landscape.surface import evaluate_fast, evaluate_sequential

    device = torch.device("cpu")
    results = _race(device, {
        "sequential": evaluate_sequential,
        "fast (vmap + affine)": evaluate_fast,
        "fast (vmap only)": lambda *a: evaluate_fast(*a, affine_first_layer=False),
        "fast (bf16 autocast)": lambda *a: evaluate_fast(*a, bf16=True),
    })
    _report(device, results)
    assert np.abs(results["fast (vmap + affine)"][1] - results["sequential"][1]).max() < 1e-4


@pytest.mark.benchmark
@pytest.mark.cuda(reason="no CUDA GPU")
def test_fast_grid_against_the_sequential_reference_gpu():
    import torch

    from studio.core.landscape.surface import evaluate_fast, evaluate_sequential

    device = torch.device("cuda")
    results = _race(device, {
        "sequential": evaluate_sequential,
        "fast (vmap + affine, bf16)": evaluate_fast,
        "fast (fp32)": lambda *a: evaluate_fast(*a, bf16=False),
    })
    _report(device, results)
    assert np.abs(results["fast (fp32)"][1] - results["sequential"][1]).max() < 1e-3
