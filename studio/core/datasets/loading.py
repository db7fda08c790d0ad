"""Turn a config's data section into tensors (workers only: imports torch)."""

from __future__ import annotations

from studio.core.datasets.arrays import ArrayData
from studio.core.datasets.augment_params import split_params
from studio.core.datasets.catalog import DATASETS
from studio.core.registry import Choice


def load_dataset(choice: Choice, seed: int = 0) -> ArrayData:
    """Build the dataset named by ``choice`` with its parameters (augmentation ones are the engine's)."""
    return DATASETS.build(choice.name, name=choice.name, seed=seed, **split_params(choice.params)[0])
