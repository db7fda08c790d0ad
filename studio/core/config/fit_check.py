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
    """About how many samples an epoch goes through (after the validation hold-out); None if unknown."""
    from studio.core.datasets import DATASETS
    from studio.core.datasets.cache import entries
    from studio.core.datasets.known import KNOWN

    name, params = config.data.name, config.data.params
    if "n_samples" in params:
        total = int(params["n_samples"])
    elif name == "fashion_mnist_small":
        total = BUNDLED_TRAIN
    elif name in KNOWN:
        total = KNOWN[name].sizes[0]
    else:
        manifest = next((m for m in entries() if m.get("name") == name), None)
        if manifest is None or "num_samples" not in manifest:
            return None
        total = int(manifest["num_samples"] * (1 - float(params.get("test_fraction", 0.0))))
    if name in OWN_VALIDATION:
        return total
    entry = DATASETS.get(name)
    own_split = any(p.name == "val_fraction" for p in entry.params)
    val = float(params["val_fraction"]) if own_split else config.train.val_fraction
    return max(int(total * (1 - val)), 0)


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
        if steps * train.epochs < train.metric_interval:
            out.append(f"{n} training samples with batch size {train.batch_size} give {steps} step"
                       f"{'s' if steps != 1 else ''} per epoch and {steps * train.epochs} in all, fewer than the "
                       f"{train.metric_interval} steps between curve points: the training curves stay empty. "
                       "Lower the batch size, train more epochs or use more data.")
        elif steps == 1:
            out.append(f"{n} training samples with batch size {train.batch_size} give one step per epoch "
                       "(full-batch gradient descent); lower the batch size for mini-batch SGD.")
    return out
