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
    own = _folder_tokenizer(model) if "text" in tags else None
    if own is not None:  # a Hugging Face model folder with a tokenizer: the text tokenized its way
        from studio.core.datasets.hf_text import load_tokenized
        from studio.core.models.catalog import sequence_context

        context = sequence_context(model.name, model.params) if model is not None else 0
        return load_tokenized(choice.name, "labelled" in tags, own, choice.params, context)
    if model is not None and "text" in tags and "labelled" not in tags:
        from studio.core.models.catalog import sequence_context

        context = sequence_context(model.name, model.params)
        if context:
            extra["sequence"] = context
    return DATASETS.build(choice.name, name=choice.name, seed=seed, **split_params(choice.params)[0], **extra)


def _folder_tokenizer(model: Choice | None) -> str | None:
    """The folder of an ``hf`` model that has its own tokenizer, else None (Studio's vocabulary is used)."""
    if model is None or model.name != "hf":
        return None
    from studio.core.datasets.hf_text import has_tokenizer
    from studio.core.models.library_models import hf_folder

    folder = hf_folder(str(model.params.get("path") or ""))
    return str(folder) if has_tokenizer(folder) else None
