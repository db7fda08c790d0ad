"""Augmentation settings of image datasets: classic ImageDataGenerator options as ``[data]`` keys.

They are registry parameters of every image dataset (so the GUI's data form shows them and
``--set data.aug_rotation=15`` works); the loaders never see them: the engine applies them to
each training batch on the training device (studio/engine/loop/augment.py). Torch-free.
"""

from __future__ import annotations

from typing import Any

from studio.core.contracts.registry import Param

PREFIX = "aug_"
FILLS = ("nearest", "constant", "reflect")

AUGMENT_PARAMS = (
    Param("aug_rotation", "float", 0.0, "random rotation range in degrees (±)", 0.0, 180.0),
    Param("aug_zoom", "float", 0.0, "random zoom range: each image is scaled by a factor in [1-z, 1+z]", 0.0, 0.9),
    Param("aug_width_shift", "float", 0.0, "random horizontal shift, as a fraction of the width (±)", 0.0, 1.0),
    Param("aug_height_shift", "float", 0.0, "random vertical shift, as a fraction of the height (±)", 0.0, 1.0),
    Param("aug_hflip", "bool", False, "flip half of the images left to right"),
    Param("aug_vflip", "bool", False, "flip half of the images upside down"),
    Param("aug_fill", "choice", "nearest", "how pixels shifted in from outside the image are filled "
          "(nearest edge pixel, constant black, or a mirror image)", choices=FILLS),
    Param("aug_samplewise_center", "bool", False,
          "subtract each image's own mean (in every split, after the dataset mean/std normalisation)"),
)


def split_params(params: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the loader's parameters, the augmentation parameters) of a data section."""
    loader = {k: v for k, v in params.items() if not k.startswith(PREFIX)}
    augment = {k: v for k, v in params.items() if k.startswith(PREFIX)}
    return loader, augment


def is_active(augment: dict[str, Any]) -> bool:
    """Whether any random transform is switched on (sample-wise centering is not random)."""
    return any(augment.get(k) for k in ("aug_rotation", "aug_zoom", "aug_width_shift", "aug_height_shift",
                                        "aug_hflip", "aug_vflip"))
