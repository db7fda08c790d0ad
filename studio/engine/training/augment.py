"""Data augmentation as batch operations on the training device (the GPU when training on one).

One random affine transform per image — rotation, zoom, width/height shift, flips — built as a
batch of 2×3 matrices and applied with ``affine_grid`` + ``grid_sample`` to the whole batch at once
(the classic Keras ImageDataGenerator options, without a Python loop over samples). Settings are
the ``aug_*`` keys of the ``[data]`` section (studio/core/datasets/augment_params.py).
"""

from __future__ import annotations

import math
from typing import Any

import torch
import torch.nn.functional as F

from studio.core.datasets.augment_params import is_active, split_params
from studio.engine.training.device_data import DeviceData

PADDING = {"nearest": "border", "constant": "zeros", "reflect": "reflection"}


class Augmenter:
    """Random affine transforms of normalised image batches (N, C, H, W)."""

    def __init__(self, params: dict[str, Any], mean: torch.Tensor, std: torch.Tensor,
                 generator: torch.Generator | None = None) -> None:
        self.rotation = math.radians(float(params.get("aug_rotation", 0.0)))
        self.zoom = float(params.get("aug_zoom", 0.0))
        self.width_shift = float(params.get("aug_width_shift", 0.0))
        self.height_shift = float(params.get("aug_height_shift", 0.0))
        self.hflip = bool(params.get("aug_hflip", False))
        self.vflip = bool(params.get("aug_vflip", False))
        fill = params.get("aug_fill", "nearest")
        self.padding = PADDING[fill]
        # "constant" fills with black: the value 0 takes after the dataset normalisation
        self.fill = ((0 - mean) / std) if fill == "constant" else None
        self.generator = generator

    def _uniform(self, n: int, device: torch.device, spread: float) -> torch.Tensor:
        """n values uniform in [-spread, spread]."""
        return (torch.rand(n, device=device, generator=self.generator) * 2 - 1) * spread

    def matrices(self, n: int, height: int, width: int, device: torch.device) -> torch.Tensor:
        """(n, 2, 3) matrices mapping output to input coordinates (affine_grid's normalised [-1, 1])."""
        angle = self._uniform(n, device, self.rotation)
        zx = 1 + self._uniform(n, device, self.zoom)
        zy = 1 + self._uniform(n, device, self.zoom)
        if self.hflip:
            zx = zx * torch.where(torch.rand(n, device=device, generator=self.generator) < 0.5, -1.0, 1.0)
        if self.vflip:
            zy = zy * torch.where(torch.rand(n, device=device, generator=self.generator) < 0.5, -1.0, 1.0)
        cos, sin = torch.cos(angle), torch.sin(angle)
        aspect = width / height  # rotate in pixel space, not in the stretched normalised square
        theta = torch.empty(n, 2, 3, device=device)
        theta[:, 0, 0] = cos * zx
        theta[:, 0, 1] = -sin * zy / aspect
        theta[:, 1, 0] = sin * zx * aspect
        theta[:, 1, 1] = cos * zy
        theta[:, 0, 2] = self._uniform(n, device, 2 * self.width_shift)  # a shift of f·width is 2f here
        theta[:, 1, 2] = self._uniform(n, device, 2 * self.height_shift)
        return theta

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        n, _, h, w = x.shape
        theta = self.matrices(n, h, w, x.device)
        grid = F.affine_grid(theta, list(x.shape), align_corners=False)
        if self.fill is not None:
            return F.grid_sample(x - self.fill, grid, padding_mode="zeros", align_corners=False) + self.fill
        return F.grid_sample(x, grid, padding_mode=self.padding, align_corners=False)


def attach(data_params: dict[str, Any], train: DeviceData, *others: DeviceData) -> Augmenter | None:
    """Switch on the ``[data]`` section's augmentation for the training split and sample-wise
    centering for every split. Returns the augmenter (None when no random transform is on)."""
    _, params = split_params(data_params)
    if train.x.dim() != 4 or not params:
        return None
    if params.get("aug_samplewise_center"):
        for data in (train, *others):
            data.center = True
    if not is_active(params):
        return None
    train.augment = Augmenter(params, train.mean, train.std)
    return train.augment


def preview(name: str, params: dict[str, Any], count: int = 16, seed: int = 0) -> dict[str, Any]:
    """``count`` training images of dataset ``name`` before and after augmentation, as uint8
    numpy arrays (N, C, H, W) for display (run in a background process: imports torch)."""
    from studio.core.config import Choice
    from studio.core.datasets.loading import load_dataset
    from studio.core.maths.normalise import stats

    data = load_dataset(Choice(name, dict(params)), seed)
    if not data.is_image:
        raise ValueError(f"{name} is not an image dataset")
    gen = torch.Generator().manual_seed(seed)
    idx = torch.randperm(len(data.y_train), generator=gen)[:count]
    x = data.x_train[idx]
    sample = data.x_train[torch.randperm(len(data.x_train), generator=gen)[:5000]]
    mean, std = stats(sample)
    split = DeviceData(x, data.y_train[idx], mean, std, torch.device("cpu"))
    _, aug = split_params(params)
    augmenter = Augmenter(aug, mean, std, generator=gen) if is_active(aug) else None
    normalised = split.normalise(split.x)
    after = augmenter(normalised) if augmenter else normalised
    pixels = ((after * std + mean) * 255).clamp(0, 255).round().to(torch.uint8)
    return {"before": x.numpy(), "after": pixels.numpy(), "labels": data.y_train[idx].numpy(),
            "classes": list(data.classes)}
