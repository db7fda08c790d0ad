"""Layer activations of one classified input (DIGITS' "visualize" view): the request the GUI builds and the
result ``engine/tasks/activations.py`` returns. Torch-free: arrays are numpy, already downsampled."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, TypedDict

import numpy as np

from studio.core.errors import ConfigError

MAX_MAPS: Final = 64  # most feature maps kept per convolutional layer (the first ones)
MAP_SIZE: Final = 32  # feature maps larger than this are average-pooled down to at most MAP_SIZE × MAP_SIZE
MAX_UNITS: Final = 1024  # most values kept per vector layer (the first ones)
MAPS_LIMITS: Final = (1, 256)


@dataclass(frozen=True)
class ActivationsRequest:
    """Run ``path`` (one image or a one-row CSV file) through the model of ``run_dir`` and keep every layer's
    output: at most ``max_maps`` feature maps per convolutional layer."""

    run_dir: str
    path: str
    checkpoint: str | None = None
    max_maps: int = MAX_MAPS
    device: str = "auto"

    def validate(self) -> ActivationsRequest:
        low, high = MAPS_LIMITS
        if not low <= self.max_maps <= high:
            raise ConfigError(f"max_maps must be between {low} and {high}, not {self.max_maps}")
        if not self.path:
            raise ConfigError("give one image (or a one-row CSV file) to show its layer activations")
        return self


class LayerActivation(TypedDict):
    """One layer's output for the input: ``maps`` (C, H, W) float32 for a layer with spatial output (C at
    most ``max_maps``), or ``vector`` (D,) float32 for a flat one (D at most ``MAX_UNITS``)."""

    name: str  # the module's name in the model, "input" for the normalised input
    layer: str  # its type, e.g. "Conv2d", "ReLU", "Linear"
    shape: list[int]  # the full output shape, without the batch dimension
    kind: str  # "maps" or "vector"
    values: np.ndarray
    low: float  # the smallest and largest value of the full output
    high: float


class ActivationsResult(TypedDict):
    run_id: str
    checkpoint: str
    input: str
    predicted: str
    probability: float
    layers: list[LayerActivation]
    seconds: float
