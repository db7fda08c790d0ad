"""Data augmentation of a training run, as batch operations on the training device (the GPU when training on one).

The transform itself (``Augmenter``) is ``core/maths/augment.py``, shared with the teaching demos; this module
switches it on for a run's splits (``attach``) and draws the Data tab's before/after preview (``preview``).
"""

from __future__ import annotations

from typing import Any

import torch

from studio.core.contracts.jobs import PreviewResult
from studio.core.datasets.augment_params import is_active, split_params
from studio.core.maths.augment import PADDING, Augmenter
from studio.engine.loop.device_data import DeviceData

__all__ = ["PADDING", "Augmenter", "attach", "preview"]


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


def preview(name: str, params: dict[str, Any], count: int = 16, seed: int = 0) -> PreviewResult:
    """``count`` training images of dataset ``name`` before and after augmentation, as uint8
    numpy arrays (N, C, H, W) for display (run in a background process: imports torch)."""
    from studio.core.config import Choice
    from studio.core.config.data_loading import load_dataset
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
