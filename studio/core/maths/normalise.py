"""The one input normalisation of Studio (training, evaluation, landscapes, demos, previews).

Pixels stored as uint8 are scaled to [0, 1]; then each channel (images, ``(N, C, H, W)``) or each feature
(tables, ``(N, F)``) is shifted by the training set's mean and divided by its standard deviation.
"""

from __future__ import annotations

import torch

MIN_STD = 1e-6  # a constant channel (a blank border pixel) is divided by this, not by zero


def pixel_scale(x: torch.Tensor) -> float:
    """The factor that brings stored values to [0, 1]: 1/255 for uint8 pixels, else 1."""
    return 1 / 255 if x.dtype == torch.uint8 else 1.0


def stats(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-channel (images) or per-feature mean and std of the training inputs, shaped to broadcast against a
    batch."""
    xf = x.float() * pixel_scale(x)
    dims, shape = ((0, 2, 3), (1, -1, 1, 1)) if xf.dim() == 4 else ((0,), (1, -1))
    return xf.mean(dim=dims).reshape(shape), xf.std(dim=dims).clamp_min(MIN_STD).reshape(shape)


def normalise(x: torch.Tensor, mean: torch.Tensor, std: torch.Tensor, scale: float | None = None) -> torch.Tensor:
    """``x`` (stored values) as the model sees it; ``scale``: the stored data's ``pixel_scale`` (default: x's)."""
    return (x.float() * (pixel_scale(x) if scale is None else scale) - mean) / std
