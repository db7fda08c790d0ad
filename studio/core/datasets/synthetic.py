"""2D point datasets for the classification playground: spiral, moons, circles, xor, gaussian."""

from __future__ import annotations

import math

import torch

from studio.core.datasets.arrays import ArrayData


def make_points(kind: str, n: int, noise: float, gen: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """``n`` points of a two-class 2D problem with Gaussian noise of scale ``noise``."""
    y = torch.arange(n) % 2
    t = torch.rand(n, generator=gen)
    if kind == "spiral":
        r = t * 1.0 + 0.1
        angle = t * 3.5 * math.pi + y * math.pi
        x = torch.stack([r * torch.cos(angle), r * torch.sin(angle)], 1)
        scale = 0.2
    elif kind == "moons":
        angle = t * math.pi
        x = torch.where(
            (y == 0).unsqueeze(1),
            torch.stack([torch.cos(angle), torch.sin(angle)], 1),
            torch.stack([1 - torch.cos(angle), 0.5 - torch.sin(angle)], 1),
        )
        scale = 0.5
    elif kind == "circles":
        angle = t * 2 * math.pi
        r = torch.where(y == 0, torch.tensor(1.0), torch.tensor(0.45))
        x = torch.stack([r * torch.cos(angle), r * torch.sin(angle)], 1)
        scale = 0.25
    elif kind == "xor":
        x = torch.rand(n, 2, generator=gen) * 2 - 1
        y = ((x[:, 0] > 0) ^ (x[:, 1] > 0)).long()
        scale = 0.2
    elif kind == "gaussian":
        centres = torch.tensor([[-1.0, -1.0], [1.0, 1.0]])
        x = centres[y] + 0.5 * torch.randn(n, 2, generator=gen)
        scale = 1.0
    else:
        raise ValueError(f"unknown point dataset {kind!r}")
    x = x + noise * scale * torch.randn(n, 2, generator=gen)
    return x.float(), y.long()


def load_points(name: str, n_samples: int = 1000, noise: float = 0.1, seed: int = 0) -> ArrayData:
    gen = torch.Generator().manual_seed(seed)
    x, y = make_points(name, n_samples, noise, gen)
    xt, yt = make_points(name, max(n_samples // 4, 20), noise, gen)
    return ArrayData(x, y, xt, yt, classes=["0", "1"], meta={"source": f"synthetic {name}"})
