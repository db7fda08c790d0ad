"""Turn a config's data section into tensors (workers only: imports torch)."""

from __future__ import annotations

from typing import Any

from studio.core.contracts.registry import Choice
from studio.core.datasets.arrays import ArrayData
from studio.core.datasets.augment_params import split_params
from studio.core.datasets.catalog import DATASETS


def load_dataset(choice: Choice, seed: int = 0, model: Choice | None = None, **extra: Any) -> ArrayData:
    """Build the dataset named by ``choice`` with its parameters (augmentation ones are the engine's). With the
    run's ``model``: a text dataset in the form that model trains on (shifted token windows for a model tagged
    ``sequence``, such as gpt_lm; ``core/models/catalog.sequence_context``). ``extra``: values the builder takes
    from outside the config (``core/runs/lineage.load_run_data``: a pretraining run's vocabulary settings)."""
    tags = DATASETS.get(choice.name).tags
    if model is not None and "text" in tags and "labelled" not in tags:
        from studio.core.models.catalog import sequence_context

        context = sequence_context(model.name, model.params)
        if context:
            extra["sequence"] = context
    return DATASETS.build(choice.name, name=choice.name, seed=seed, **split_params(choice.params)[0], **extra)
