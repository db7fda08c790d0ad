"""The 2-D landscape against the reference implementation's evaluation loop (Li et al. 2018, the
tomgoldstein/loss-landscape repository): for each grid point, overwrite every parameter with
``w + a·d₁ + b·d₂``, then run the data through a ``DataLoader`` (batches of 128), summing ``loss.item()·batch`` and
the correct predictions batch by batch. Written here from that description (no code of the repository is used);
its HDF5 writes, MPI reduction and printing per point are left out, so the reference is if anything faster than
the original. Same model, directions and data for both; the evaluators take turns on blocks of grid rows (one
load for both), side by side in one run, surfaces compared point by point.

Run: ``python -m pytest tests/benchmarks/test_landscape_reference.py -m benchmark -s``.
"""

from __future__ import annotations

import os
import time

import numpy as np
import pytest

from studio.core.config import Choice

SAMPLES, BLOCKS = 2000, 3


def reference_loop(model, base, directions, coeffs, x, y, batch_size: int = 128) -> tuple[np.ndarray, np.ndarray]:
    """Mean loss and accuracy at each row of ``coeffs``, one point at a time as the reference code does."""
    import torch
    from torch.utils.data import DataLoader, TensorDataset

    loader = DataLoader(TensorDataset(x, y), batch_size=batch_size, shuffle=False)
    criterion = torch.nn.CrossEntropyLoss()
    params = dict(model.named_parameters())
    losses, accs = [], []
    model.eval()
    for a, b in coeffs.tolist():
        for name, p in params.items():  # the point's weights
            p.data = base[name] + directions[0][name] * a + directions[1][name] * b
        total_loss, correct, total = 0.0, 0, 0
        with torch.no_grad():
            for inputs, targets in loader:
                outputs = model(inputs)
                total_loss += criterion(outputs, targets).item() * inputs.size(0)
                correct += outputs.max(1)[1].eq(targets).sum().item()
                total += inputs.size(0)
        losses.append(total_loss / total)
        accs.append(correct / total)
    return np.array(losses), np.array(accs)


def _setup(model_name: str):
    import torch

    from studio.core.config.data_loading import load_dataset
    from studio.core.landscape.directions import normalized_directions, parameters_of
    from studio.core.maths.normalise import stats
    from studio.core.models import MODELS

    data = load_dataset(Choice("fashion_mnist_small"))
    mean, std = stats(data.x_train)
    x = ((data.x_train[:SAMPLES].float() / 255 - mean) / std).contiguous()
    y = data.y_train[:SAMPLES]
    torch.manual_seed(0)
    model = MODELS.build(model_name, input_shape=(1, 28, 28), num_classes=10).eval()
    base = parameters_of(model)
    return model, base, normalized_directions(base, 2, seed=0), x, y


def race(model_name: str, resolution: int) -> dict[str, tuple[float, np.ndarray]]:
    """{evaluator: (seconds, losses)} for a ``resolution``² grid."""
    from studio.core.landscape.surface import evaluate_fast, grid_coefficients

    model, base, dirs, x, y = _setup(model_name)
    grid = np.linspace(-1, 1, resolution)
    evaluators = {"reference loop": reference_loop, "Studio (evaluate_fast)": evaluate_fast}
    for fn in evaluators.values():  # warm-up: vmap tracing, kernels, allocator
        fn(model, base, dirs, grid_coefficients(grid[:2], grid[:1]), x, y)
    seconds = dict.fromkeys(evaluators, 0.0)
    losses: dict[str, list[np.ndarray]] = {name: [] for name in evaluators}
    for rows in np.array_split(grid, BLOCKS):
        coeffs = grid_coefficients(grid, rows)
        for name, fn in evaluators.items():
            started = time.perf_counter()
            loss, _ = fn(model, base, dirs, coeffs, x, y)
            seconds[name] += time.perf_counter() - started
            losses[name].append(np.asarray(loss, dtype=np.float64))
    return {name: (seconds[name], np.concatenate(losses[name])) for name in evaluators}


@pytest.mark.benchmark
@pytest.mark.parametrize("model_name, resolution", [("mlp", 21), ("cnn", 21), ("mlp", 41), ("cnn", 41)])
def test_landscape_against_the_reference_loop(model_name, resolution):
    import torch

    torch.set_num_threads(1)  # on a shared 2-core machine, two spin-waiting threads measure the others' load
    results = race(model_name, resolution)
    ref_s, ref = results["reference loop"]
    fast_s, fast = results["Studio (evaluate_fast)"]
    diff = float(np.abs(fast - ref).max())
    print(f"\n{model_name} {resolution}×{resolution}, {SAMPLES} samples, {torch.get_num_threads()} threads, load "
          f"{os.getloadavg()[0]:.1f}: reference {ref_s:.2f} s, Studio {fast_s:.2f} s, ×{ref_s / fast_s:.2f}; "
          f"max |Δloss| {diff:.1e}")
    assert diff < 1e-6  # the equality
