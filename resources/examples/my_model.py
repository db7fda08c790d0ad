"""An example of your own model and data for Studio (docs/user-guide/own-model-and-data.md).

Open it in Studio (drop it on the window, or File > Open…): the Model form lists SmallCNN and make_mlp, the Data
form lists Stripes, each with its arguments as fields. Studio reads this file without running it; the training
processes import it, and every run keeps a copy with its SHA-256 in the run folder (code/).

From the command line, with my_model.toml beside this file:

    studio train --config my_model.toml
    studio train --config my_model.toml --set model.args.filters=32
    studio queue sweep --config my_model.toml --vary model.args.filters=8,16,32
"""

from __future__ import annotations

import math
from typing import Literal

import torch
from torch import nn
from torch.utils.data import Dataset


class SmallCNN(nn.Module):
    """Two convolution blocks and a linear head."""

    def __init__(self, in_channels: int, num_classes: int, filters: int = 16, dropout: float = 0.1,
                 activation: Literal["relu", "gelu"] = "relu"):
        super().__init__()
        act = nn.ReLU if activation == "relu" else nn.GELU
        self.features = nn.Sequential(
            nn.Conv2d(in_channels, filters, 3, padding=1), nn.BatchNorm2d(filters), act(), nn.MaxPool2d(2),
            nn.Conv2d(filters, 2 * filters, 3, padding=1), nn.BatchNorm2d(2 * filters), act(),
            nn.AdaptiveAvgPool2d(1),
        )
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(dropout), nn.Linear(2 * filters, num_classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x))


def make_mlp(input_shape: tuple[int, ...], num_classes: int, widths: list[int] = [128, 64]) -> nn.Module:
    """A multi-layer perceptron built by a function (a factory works like a class)."""
    layers: list[nn.Module] = [nn.Flatten()]
    size = math.prod(input_shape)
    for width in widths:
        layers += [nn.Linear(size, width), nn.ReLU()]
        size = width
    return nn.Sequential(*layers, nn.Linear(size, num_classes))


class Stripes(Dataset):
    """Grey 16×16 images of a stripe: horizontal, vertical or diagonal, with noise (made here, no download)."""

    classes = ["horizontal", "vertical", "diagonal"]

    def __init__(self, split: str = "train", samples: int = 600, noise: float = 0.3):
        seed = {"train": 0, "val": 1, "test": 2}[split]
        g = torch.Generator().manual_seed(seed)
        self.labels = torch.randint(0, 3, (samples,), generator=g)
        self.where = torch.randint(2, 14, (samples,), generator=g)
        self.noise = noise

    def __len__(self) -> int:
        return len(self.labels)

    def __getitem__(self, i: int) -> tuple[torch.Tensor, int]:
        image = torch.zeros(1, 16, 16)
        k, label = int(self.where[i]), int(self.labels[i])
        if label == 0:
            image[0, k, :] = 1.0
        elif label == 1:
            image[0, :, k] = 1.0
        else:
            image[0] = torch.eye(16).roll(k - 8, dims=1)
        # a random transform: Studio seeds every batch, so runs and resumes read the same numbers
        return image + self.noise * torch.randn_like(image), label
