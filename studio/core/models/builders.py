"""Model builders: ``build(input_shape, num_classes, **params) -> nn.Module``."""

from __future__ import annotations

import math

from torch import nn

from studio.core.errors import ConfigError

_ACT = {"relu": nn.ReLU, "gelu": nn.GELU, "tanh": nn.Tanh, "sigmoid": nn.Sigmoid}


def build_linear(input_shape: tuple[int, ...], num_classes: int, bias: bool = True) -> nn.Module:
    return nn.Sequential(nn.Flatten(), nn.Linear(math.prod(input_shape), num_classes, bias=bias))


def build_mlp(
    input_shape: tuple[int, ...], num_classes: int, widths: list[int] = (512, 512), activation: str = "relu",
    dropout: float = 0.0, batch_norm: bool = False,
) -> nn.Module:
    layers: list[nn.Module] = [nn.Flatten()]
    width = math.prod(input_shape)
    for w in widths:
        layers.append(nn.Linear(width, w))
        if batch_norm:
            layers.append(nn.BatchNorm1d(w))
        layers.append(_ACT[activation]())
        if dropout > 0:
            layers.append(nn.Dropout(dropout))
        width = w
    layers.append(nn.Linear(width, num_classes))
    return nn.Sequential(*layers)


def build_cnn(
    input_shape: tuple[int, ...], num_classes: int, filters: list[int] = (75, 50, 25), kernel: int = 3,
    dense: int = 512, dropout: float = 0.2,
) -> nn.Module:
    if len(input_shape) != 3:
        raise ConfigError("the cnn model needs image data (channels × height × width); pick mlp for point data")
    channels, height, width = input_shape
    layers: list[nn.Module] = []
    for i, f in enumerate(filters):
        layers += [nn.Conv2d(channels, f, kernel, padding=kernel // 2), nn.BatchNorm2d(f), nn.ReLU()]
        if i == 1 and dropout > 0:
            layers.append(nn.Dropout(dropout))
        if height >= 2 and width >= 2:
            layers.append(nn.MaxPool2d(2, ceil_mode=True))
            height, width = (height + 1) // 2, (width + 1) // 2
        channels = f
    layers += [nn.Flatten(), nn.Linear(channels * height * width, dense), nn.ReLU()]
    if dropout > 0:
        layers.append(nn.Dropout(dropout))
    layers.append(nn.Linear(dense, num_classes))
    return nn.Sequential(*layers)
