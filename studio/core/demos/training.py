"""Small training helpers the dataset demos share (large-batch lab, noise scale, regularisation).

Data come from the dataset registry, held as normalised float tensors on one device (per-channel mean/std
of the training inputs, as the engine does); a batch is an index gather. The model is a catalog model.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from studio.core.config import Choice
from studio.core.config.data_loading import load_dataset
from studio.core.datasets.catalog import DATASETS
from studio.core.errors import DataError
from studio.core.maths.augment import Augmenter
from studio.core.maths.normalise import normalise, stats
from studio.core.maths.objectives import correct_count, cross_entropy_sum
from studio.core.models.catalog import MODELS


@dataclass
class Split:
    x: torch.Tensor  # normalised float inputs
    y: torch.Tensor

    def __len__(self) -> int:
        return len(self.y)


@dataclass
class Data:
    train: Split
    test: Split
    input_shape: tuple[int, ...]
    num_classes: int
    is_image: bool


def _subset(x: torch.Tensor, y: torch.Tensor, n: int, gen: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    if n <= 0 or n >= len(y):
        return x, y
    idx = torch.randperm(len(y), generator=gen)[:n]
    return x[idx], y[idx]


def load_data(dataset: str, train_samples: int = 0, test_samples: int = 0, seed: int = 0,
              device: torch.device | str = "cpu") -> Data:
    """A classification dataset from the registry: seeded subsets (0: all), normalised, on ``device``."""
    entry = DATASETS.get(dataset)
    if "regression" in entry.tags:
        raise DataError(f"{dataset} is a regression dataset; this demo needs classes (e.g. fashion_mnist_small)")
    data = load_dataset(Choice(dataset, DATASETS.resolve(dataset, {}, "demo.dataset")), seed)
    if data.meta.get("task") == "regression":
        raise DataError(f"{dataset} is a regression dataset; this demo needs classes (e.g. fashion_mnist_small)")
    gen = torch.Generator().manual_seed(seed)
    xtr, ytr = _subset(data.x_train, data.y_train, train_samples, gen)
    xte, yte = _subset(data.x_test, data.y_test, test_samples, gen)
    mean, std = stats(xtr)
    return Data(Split(normalise(xtr, mean, std).to(device), ytr.long().to(device)),
                Split(normalise(xte, mean, std).to(device), yte.long().to(device)),
                tuple(data.input_shape), data.num_classes, data.is_image)


def with_label_noise(split: Split, fraction: float, num_classes: int, seed: int) -> Split:
    """A copy of ``split`` with ``fraction`` of its labels (chosen at random) changed to another class, uniformly
    (noisy targets: what a large net memorises and a regulariser resists; Krogh & Hertz 1992, Zhang et al. 2017)."""
    if not 0.0 <= fraction <= 1.0:
        raise DataError(f"the share of noisy labels must be between 0 and 1; got {fraction}")
    n = round(fraction * len(split))
    if n == 0 or num_classes < 2:
        return split
    gen = torch.Generator().manual_seed(seed + 7919)
    idx = torch.randperm(len(split), generator=gen)[:n]
    y = split.y.clone()
    shift = torch.randint(1, num_classes, (n,), generator=gen).to(y.device)  # never 0: always another class
    y[idx.to(y.device)] = (y[idx.to(y.device)] + shift) % num_classes
    return Split(split.x, y)


def build_model(name: str, data: Data, seed: int, device: torch.device | str = "cpu", **params: Any) -> nn.Module:
    """A catalog model for ``data``, initialised from ``seed``."""
    torch.manual_seed(seed)
    return MODELS.build(name, input_shape=data.input_shape, num_classes=data.num_classes, **params).to(device)


def evaluate(model: nn.Module, split: Split, batch: int = 2048) -> tuple[float, float]:
    """(mean cross-entropy, accuracy) over ``split`` in eval mode."""
    was = model.training
    model.eval()
    loss, correct = 0.0, 0.0
    with torch.no_grad():
        for i in range(0, len(split), batch):
            out = model(split.x[i:i + batch])
            loss += float(cross_entropy_sum(out, split.y[i:i + batch]))
            correct += float(correct_count(out, split.y[i:i + batch]))
    model.train(was)
    n = max(len(split), 1)
    return loss / n, correct / n


class Batches:
    """Shuffled mini-batches of indices, a new permutation each epoch; ``batch`` ≥ n means the full set."""

    def __init__(self, n: int, batch: int, seed: int, device: torch.device | str = "cpu") -> None:
        self.n, self.batch = n, min(batch, n)
        self.gen = torch.Generator().manual_seed(seed)
        self.device = device
        self.per_epoch = n // self.batch  # drop the ragged end: every step sees a full batch
        self._order, self._cursor = self._perm(), 0

    def _perm(self) -> torch.Tensor:
        return torch.randperm(self.n, generator=self.gen).to(self.device)

    def next(self) -> torch.Tensor:
        if self._cursor + self.batch > self.n:
            self._order, self._cursor = self._perm(), 0
        idx = self._order[self._cursor:self._cursor + self.batch]
        self._cursor += self.batch
        return idx


def train_epoch(model: nn.Module, opt: torch.optim.Optimizer, split: Split, batches: Batches,
                transform: Callable[[torch.Tensor], torch.Tensor] | None = None) -> None:
    """One epoch of mini-batch cross-entropy steps on ``split`` in train mode (``transform``: e.g. augment the
    inputs of each batch)."""
    model.train()
    for _ in range(batches.per_epoch):
        idx = batches.next()
        x = split.x[idx]
        loss = nn.functional.cross_entropy(model(transform(x) if transform is not None else x), split.y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()


def random_shift_flip(x: torch.Tensor, shift: float, flip: bool, gen: torch.Generator | None = None) -> torch.Tensor:
    """Random translations by up to ``shift`` of the image size and left–right flips of an image batch (N, C, H, W):
    the trainer's augmentation (``core/maths/augment.Augmenter``) with only those two switched on."""
    params = {"aug_width_shift": shift, "aug_height_shift": shift, "aug_hflip": flip}
    return Augmenter(params, generator=gen)(x)


def steps_for(epochs: float, n: int, batch: int) -> int:
    return max(1, math.ceil(epochs * max(n // min(batch, n), 1)))
