"""Model builders: ``build(input_shape, num_classes, **params) -> nn.Module``.

``num_classes`` is the number of outputs: class scores for classification, 1 for a regression target.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from torch import nn

from studio.core.errors import ConfigError
from studio.core.models.from_run import from_run
from studio.core.models.vision import torchvision_module

_ACT = {"relu": nn.ReLU, "gelu": nn.GELU, "tanh": nn.Tanh, "sigmoid": nn.Sigmoid}


def build_linear(input_shape: tuple[int, ...], num_classes: int, bias: bool = True) -> nn.Module:
    """One linear layer: y = Wx + b (softmax regression on classes, a linear neuron on a regression target)."""
    return nn.Sequential(nn.Flatten(), nn.Linear(math.prod(input_shape), num_classes, bias=bias))


def build_mlp(
    input_shape: tuple[int, ...], num_classes: int, widths: Sequence[int] = (512, 512), activation: str = "relu",
    dropout: float = 0.0, batch_norm: bool = False,
    init_from: str = "", frozen_epochs: int = 0, base_lr_factor: float = 1.0, init_weights: str = "",
) -> nn.Module:
    """``init_from``…``init_weights``: start from a finished run's weights (core/models/from_run.py)."""
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
    return from_run(nn.Sequential(*layers), "mlp", num_classes, init_from, init_weights, frozen_epochs,
                    base_lr_factor)


def _image_shape(input_shape: tuple[int, ...], model: str) -> tuple[int, int, int]:
    if len(input_shape) != 3:
        raise ConfigError(f"the {model} model needs image data (channels × height × width); "
                          "pick mlp or linear for point data")
    return input_shape


def build_cnn(
    input_shape: tuple[int, ...], num_classes: int, filters: Sequence[int] = (75, 50, 25), kernel: int = 3,
    dense: int = 512, dropout: float = 0.2,
    init_from: str = "", frozen_epochs: int = 0, base_lr_factor: float = 1.0, init_weights: str = "",
) -> nn.Module:
    channels, height, width = _image_shape(input_shape, "cnn")
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
    return from_run(nn.Sequential(*layers), "cnn", num_classes, init_from, init_weights, frozen_epochs,
                    base_lr_factor)


def build_lenet5(input_shape: tuple[int, ...], num_classes: int, activation: str = "tanh", pooling: str = "avg",
                 dropout: float = 0.0, init_from: str = "", frozen_epochs: int = 0,
                 base_lr_factor: float = 1.0, init_weights: str = "") -> nn.Module:
    """LeNet-5 (LeCun et al. 1998): conv 6@5×5, pool, conv 16@5×5, pool, dense 120, 84, outputs.

    Images smaller than 32 px get a 2-pixel padding on the first convolution (as for 28×28 MNIST)."""
    channels, height, width = _image_shape(input_shape, "lenet5")
    if min(height, width) < 12:
        raise ConfigError(f"lenet5 needs images of at least 12×12 pixels; these are {height}×{width}")
    act, pool = _ACT[activation], {"avg": nn.AvgPool2d, "max": nn.MaxPool2d}[pooling]
    features = nn.Sequential(
        nn.Conv2d(channels, 6, 5, padding=2 if min(height, width) < 32 else 0), act(), pool(2),
        nn.Conv2d(6, 16, 5), act(), pool(2), nn.Flatten(),
    )
    with torch.no_grad():
        flat = features(torch.zeros(1, channels, height, width)).shape[1]
    head: list[nn.Module] = [nn.Linear(flat, 120), act(), nn.Linear(120, 84), act()]
    if dropout > 0:
        head.append(nn.Dropout(dropout))
    return from_run(nn.Sequential(*features, *head, nn.Linear(84, num_classes)), "lenet5", num_classes, init_from,
                    init_weights, frozen_epochs, base_lr_factor)


def build_resnet18(input_shape: tuple[int, ...], num_classes: int, small_input: str = "auto",
                   zero_init_residual: bool = False, init_from: str = "", frozen_epochs: int = 0,
                   base_lr_factor: float = 1.0, init_weights: str = "") -> nn.Module:
    """torchvision's ResNet-18; for small images (≤ 64 px when ``small_input`` is auto) a 3×3 stride-1
    stem and no max-pool, so a 32×32 image still has 4×4 features in the last stage."""
    torchvision = torchvision_module("resnet18")

    channels, height, width = _image_shape(input_shape, "resnet18")
    net = torchvision.models.resnet18(num_classes=num_classes, zero_init_residual=zero_init_residual)
    small = max(height, width) <= 64 if small_input == "auto" else small_input == "yes"
    if small:
        net.conv1 = nn.Conv2d(channels, 64, 3, stride=1, padding=1, bias=False)
        net.maxpool = nn.Identity()
    elif channels != 3:
        net.conv1 = nn.Conv2d(channels, 64, 7, stride=2, padding=3, bias=False)
    nn.init.kaiming_normal_(net.conv1.weight, mode="fan_out", nonlinearity="relu")
    return from_run(net, "resnet18", num_classes, init_from, init_weights, frozen_epochs, base_lr_factor)
