"""The noisy-line regression dataset: y = w_gen·(x + noise) + b_gen, for the linear neuron.

x is uniform on [−1, 1]; the noise ε ~ N(0, noise²) is added to x before the line is applied, so
the target scatters by |w_gen|·noise around the line. Inputs are not normalised (meta["normalise"]
is False), so a fitted linear neuron's w and b are directly comparable with w_gen and b_gen. The
dataset has its own validation split (10 % of the training points); targets are float32 (N, 1).
"""

from __future__ import annotations

import torch

from studio.core.datasets.arrays import ArrayData


def make_line(n: int, w_gen: float, b_gen: float, noise: float,
              gen: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """(x, y), each float32 of shape (n, 1)."""
    x = torch.rand(n, 1, generator=gen) * 2 - 1
    y = w_gen * (x + noise * torch.randn(n, 1, generator=gen)) + b_gen
    return x, y


def load_noisy_line(name: str = "noisy_line", n_samples: int = 200, w_gen: float = 2.0, b_gen: float = -1.0,
                    noise: float = 0.3, seed: int = 0) -> ArrayData:
    gen = torch.Generator().manual_seed(seed)
    n_val = max(2, n_samples // 10)
    x, y = make_line(n_samples + n_val, w_gen, b_gen, noise, gen)
    x_test, y_test = make_line(max(n_samples // 4, 10), w_gen, b_gen, noise, gen)
    return ArrayData(
        x[:n_samples], y[:n_samples], x_test, y_test, classes=["y"], x_val=x[n_samples:], y_val=y[n_samples:],
        meta={"source": f"synthetic line y = {w_gen:g}·(x + noise) {'−' if b_gen < 0 else '+'} {abs(b_gen):g}",
              "task": "regression",
              "normalise": False, "w_gen": w_gen, "b_gen": b_gen},
    )
