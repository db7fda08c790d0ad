"""Random affine image augmentation as one batch operation: the one implementation the trainer
(``engine/loop/augment.py``), the augmentation preview and the teaching demos (``core/demos``) share.

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

PADDING = {"nearest": "border", "constant": "zeros", "reflect": "reflection"}


class Augmenter:
    """Random affine transforms of normalised image batches (N, C, H, W).

    ``mean``/``std`` are the dataset normalisation; only ``aug_fill = "constant"`` needs them (black is
    ``(0 - mean) / std`` after normalisation). With a ``generator`` the random numbers are drawn on the
    generator's device and moved to the batch's, so a seeded CPU generator also drives a GPU batch.
    """

    def __init__(self, params: dict[str, Any], mean: torch.Tensor | None = None, std: torch.Tensor | None = None,
                 generator: torch.Generator | None = None) -> None:
        self.rotation = math.radians(float(params.get("aug_rotation", 0.0)))
        self.zoom = float(params.get("aug_zoom", 0.0))
        self.width_shift = float(params.get("aug_width_shift", 0.0))
        self.height_shift = float(params.get("aug_height_shift", 0.0))
        self.hflip = bool(params.get("aug_hflip", False))
        self.vflip = bool(params.get("aug_vflip", False))
        fill = params.get("aug_fill", "nearest")
        self.padding = PADDING[fill]
        self.fill: torch.Tensor | None = None
        if fill == "constant":  # fills with black: the value 0 takes after the dataset normalisation
            if mean is None or std is None:
                raise ValueError("aug_fill = 'constant' needs the dataset's mean and std")
            self.fill = (0 - mean) / std
        self.generator = generator

    def _rand(self, n: int, device: torch.device) -> torch.Tensor:
        """n values uniform in [0, 1) on ``device`` (drawn on the generator's device when there is one)."""
        if self.generator is None:
            return torch.rand(n, device=device)
        return torch.rand(n, device=self.generator.device, generator=self.generator).to(device)

    def _uniform(self, n: int, device: torch.device, spread: float) -> torch.Tensor:
        """n values uniform in [-spread, spread]."""
        return (self._rand(n, device) * 2 - 1) * spread

    def matrices(self, n: int, height: int, width: int, device: torch.device) -> torch.Tensor:
        """(n, 2, 3) matrices mapping output to input coordinates (affine_grid's normalised [-1, 1])."""
        angle = self._uniform(n, device, self.rotation)
        zx = 1 + self._uniform(n, device, self.zoom)
        zy = 1 + self._uniform(n, device, self.zoom)
        if self.hflip:
            zx = zx * torch.where(self._rand(n, device) < 0.5, -1.0, 1.0)
        if self.vflip:
            zy = zy * torch.where(self._rand(n, device) < 0.5, -1.0, 1.0)
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
