"""Warnings before training when the model and the data do not fit together, from the registries alone
(no data loaded, no torch): a regression model on a classification dataset, an image model on points, a
dataset so small for the batch size that an epoch is one step and the curves stay empty.
"""

from __future__ import annotations

import math

from studio.core.config import RunConfig

BUNDLED_TRAIN = 10_000  # fashion_mnist_small (core/datasets/catalog.py)
# datasets whose n_samples are all training points: their loader draws the validation points besides them
# (core/datasets/noisy_line.py), so train.val_fraction takes none away
OWN_VALIDATION = frozenset({"noisy_line"})


def training_samples(config: RunConfig) -> int | None:
    """About how many samples an epoch goes through (after the validation hold-out); None if unknown. An imported
    dataset's count is exact: its split rules (``core/datasets/splits.py``), as the Data tab shows them."""
    from studio.core.datasets import DATASETS
    from studio.core.datasets.known import KNOWN

    name, params = config.data.name, config.data.params
    if "n_samples" in params:
        total = int(params["n_samples"])
    elif name == "fashion_mnist_small":
        total = BUNDLED_TRAIN
    elif name in KNOWN and not _cached(name):
        total = KNOWN[name].sizes[0]
    else:
        return imported_training_samples(name, params)
    if name in OWN_VALIDATION:
        return total
    entry = DATASETS.get(name)
    own_split = any(p.name == "val_fraction" for p in entry.params)
    val = float(params["val_fraction"]) if own_split else config.train.val_fraction
    return max(int(total * (1 - val)), 0)


def _cached(name: str) -> bool:
    from studio.core.datasets import cache

    return cache.manifest(name) is not None


_SPLIT_SIZES: dict[tuple[str, str, float, float], dict[str, int]] = {}  # (name, cache key, val, test) → sizes


def imported_training_samples(name: str, params: dict) -> int | None:
    """The training split of cached dataset ``name`` under its ``[data]`` split parameters (None: not cached).
    Read once per dataset and split (the settings panel asks at every edit)."""
    from studio.core.datasets import cache, splits

    manifest = cache.manifest(name)
    if manifest is None:
        return None
    val = float(params.get("val_fraction", splits.DEFAULT_VAL))
    test = float(params.get("test_fraction", splits.DEFAULT_TEST))
    key = (name, str(manifest.get("key", "")), val, test)
    if key not in _SPLIT_SIZES:
        arrays = cache.load_arrays(name, mmap=True)
        _SPLIT_SIZES[key] = splits.planned_sizes(arrays["y"], arrays["split"], val, test)
    return _SPLIT_SIZES[key]["train"]


def fit_warnings(config: RunConfig) -> list[str]:
    """Sentences a person can act on; empty when nothing looks wrong."""
    from studio.core.datasets import DATASETS
    from studio.core.models import MODELS

    out = []
    data_tags, model_tags = DATASETS.get(config.data.name).tags, MODELS.get(config.model.name).tags
    if "regression" in model_tags and "regression" not in data_tags:
        out.append(f"{config.model.name} is a regression model (one number, mean squared error) but "
                   f"{config.data.name} is a classification dataset: it would train as a classifier. Pick "
                   "softmax_regression or mlp for it, or the noisy_line dataset for the linear neuron.")
    if "image" in model_tags and "image" not in data_tags and "text" not in data_tags:
        out.append(f"{config.model.name} is an image model but {config.data.name} holds points, not images; "
                   "pick mlp.")
    n = None if "text" in data_tags else training_samples(config)  # text is counted in sequences, not samples
    train = config.train
    if n is not None and n > 0:
        steps = max(1, math.ceil(n / train.batch_size))
        steps = min(steps, train.epoch_steps) if train.epoch_steps > 0 else steps
        if steps * train.epochs < train.metric_interval:
            out.append(f"{n} training samples with batch size {train.batch_size} give {steps} step"
                       f"{'s' if steps != 1 else ''} per epoch and {steps * train.epochs} in all, fewer than the "
                       f"{train.metric_interval} steps between curve points: the training curves stay empty. "
                       "Lower the batch size, train more epochs or use more data.")
        elif steps == 1:
            out.append(f"{n} training samples with batch size {train.batch_size} give one step per epoch "
                       "(full-batch gradient descent); lower the batch size for mini-batch SGD.")
    return out
