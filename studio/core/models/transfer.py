"""Transfer learning: a torchvision classification model with a new head, its base frozen first.

Pretrained weights come from the torch hub cache; a file not there yet is downloaded into it once (the run's start
waits for it), and a machine that cannot download gets a DataError saying which file to put where.
Two-stage fine-tuning: the trainer keeps the base frozen for ``frozen_epochs`` epochs (only the new head learns,
batch norm in the base stays in inference mode), then unfreezes it; the base has its own parameter group with the
learning rate × ``base_lr_factor`` from the start, so schedules scale both stages alike.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlparse

import torch
from torch import nn

from studio.core.errors import ConfigError, DataError
from studio.core.models.vision import torchvision_module


def weights_path(arch: str) -> tuple[Path, str]:
    """Where the torch hub cache keeps ``arch``'s default pretrained weights, and their download URL."""
    torchvision = torchvision_module("transfer")

    weights = torchvision.models.get_model_weights(arch).DEFAULT
    name = os.path.basename(urlparse(weights.url).path)
    return Path(torch.hub.get_dir()) / "checkpoints" / name, weights.url


def _torchvision_model(arch: str, pretrained: bool) -> nn.Module:
    torchvision = torchvision_module("transfer")

    names = torchvision.models.list_models(module=torchvision.models)
    if arch not in names:
        raise ConfigError(f"model.arch {arch!r} is not a torchvision classification model; choose one of: "
                          + ", ".join(names))
    if not pretrained:
        return torchvision.models.get_model(arch, weights=None)
    path, url = weights_path(arch)
    if not path.is_file():
        download_weights(arch, path, url)
    return torchvision.models.get_model(arch, weights="DEFAULT")  # in the cache now: no download


def download_weights(arch: str, path: Path, url: str, timeout_s: float = 60.0) -> None:
    """Fetch ``arch``'s ImageNet weights into the torch hub cache once (torch.hub checks the file's hash and writes
    it whole); a machine that cannot reach ``url`` gets one sentence saying where to put the file instead."""
    import socket

    previous = socket.getdefaulttimeout()
    socket.setdefaulttimeout(timeout_s)  # a blocked network fails in a minute instead of hanging the run's start
    try:
        torch.hub.load_state_dict_from_url(url, model_dir=str(path.parent), progress=False, check_hash=True)
    except Exception as err:  # noqa: BLE001 - any failure to fetch (no network, a proxy, a bad file) is one sentence
        reason = str(err).splitlines()[0] if str(err) else type(err).__name__
        raise DataError(
            f"could not download the ImageNet weights for {arch} ({reason}): on a machine without a connection, "
            f"fetch {url} and put it at {path} (the torch hub cache; set TORCH_HOME to move it), "
            "or set model.pretrained=false to train from scratch"
        ) from None
    finally:
        socket.setdefaulttimeout(previous)


def last_linear(net: nn.Module, arch: str) -> str:
    names = [name for name, module in net.named_modules() if isinstance(module, nn.Linear)]
    if not names:
        raise ConfigError(f"{arch} has no linear classification head to replace; pick another model.arch "
                          "(e.g. resnet18, mobilenet_v3_small, efficientnet_b0)")
    return names[-1]


class TransferNet(nn.Module):
    """A model whose last linear layer is a new head with ``num_classes`` outputs (a torchvision model, or a Studio
    run's model: core/models/from_run.py).

    With ``grey_to_rgb`` grey images are repeated to three channels (torchvision's ImageNet models read colour);
    ``resize`` > 0 resamples inputs to that size first.
    """

    def __init__(self, net: nn.Module, head_name: str, num_classes: int, resize: int = 0, frozen_epochs: int = 0,
                 base_lr_factor: float = 1.0, grey_to_rgb: bool = True) -> None:
        super().__init__()
        old = net.get_submodule(head_name)
        assert isinstance(old, nn.Linear), "last_linear names a linear layer"
        parent_name, _, leaf = head_name.rpartition(".")
        setattr(net.get_submodule(parent_name) if parent_name else net, leaf, nn.Linear(old.in_features, num_classes))
        for attr in ("AuxLogits", "aux1", "aux2"):  # inception/googlenet side heads: not used here
            if getattr(net, attr, None) is not None:
                setattr(net, attr, None)
        if hasattr(net, "aux_logits"):
            net.aux_logits = False  # type: ignore[assignment]  # torch types every Module attribute Tensor | Module
        self.net, self.head_name, self.resize, self.grey_to_rgb = net, head_name, resize, grey_to_rgb
        self.frozen_epochs, self.base_lr_factor = frozen_epochs, base_lr_factor
        self.base_frozen = False
        if frozen_epochs > 0:
            self.freeze_base(True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.grey_to_rgb and x.dim() == 4 and x.shape[1] == 1:
            x = x.expand(-1, 3, -1, -1)
        if self.resize and tuple(x.shape[-2:]) != (self.resize, self.resize):
            x = nn.functional.interpolate(x, size=(self.resize, self.resize), mode="bilinear", align_corners=False)
        return self.net(x)

    def head_parameters(self) -> list[nn.Parameter]:
        return list(self.net.get_submodule(self.head_name).parameters())

    def base_parameters(self) -> list[nn.Parameter]:
        head = {id(p) for p in self.head_parameters()}
        return [p for p in self.parameters() if id(p) not in head]

    def optimizer_groups(self, lr: float) -> list[dict]:
        """Parameter groups: the head at ``lr``, the base at ``lr × base_lr_factor``."""
        return [{"params": self.head_parameters()},
                {"params": self.base_parameters(), "lr": lr * self.base_lr_factor}]

    def freeze_base(self, frozen: bool = True) -> None:
        self.base_frozen = frozen
        for p in self.base_parameters():
            p.requires_grad_(not frozen)
        self.train(self.training)

    def train(self, mode: bool = True) -> TransferNet:
        super().train(mode)
        if self.base_frozen:  # a frozen base keeps its batch-norm statistics (Keras's inference mode)
            head = self.net.get_submodule(self.head_name)
            for module in self.net.modules():
                if isinstance(module, nn.modules.batchnorm._BatchNorm) and module is not head:
                    module.eval()
        return self


def build_transfer(input_shape: tuple[int, ...], num_classes: int, arch: str = "resnet18", pretrained: bool = True,
                   frozen_epochs: int = 3, base_lr_factor: float = 0.01, resize: int = 0) -> nn.Module:
    if len(input_shape) != 3 or input_shape[0] not in (1, 3):
        raise ConfigError("transfer learning needs grey or colour images (1 or 3 channels); "
                          f"this dataset's inputs have shape {tuple(input_shape)}")
    net = _torchvision_model(arch, pretrained)
    return TransferNet(net, last_linear(net, arch), num_classes, resize, frozen_epochs, base_lr_factor)
