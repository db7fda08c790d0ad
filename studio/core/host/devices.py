"""Which torch device a computation runs on: the one place that turns "auto", "cpu", "cuda" or "cuda:N"
(and a GPU index) into a ``torch.device``, with a sentence when the machine cannot do what was asked."""

from __future__ import annotations

from typing import Any

from studio.core.errors import ConfigError


def pick_device(device: str = "auto", index: int | None = None) -> Any:
    """"auto" → the first CUDA GPU if there is one, else the CPU; ``index`` picks (and selects) a GPU
    (imports torch)."""
    import torch

    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if device.startswith("cuda"):
        if not torch.cuda.is_available():
            raise ConfigError("device cuda was asked for but PyTorch sees no CUDA GPU here; use cpu (or auto)")
        if index is not None:
            if index >= torch.cuda.device_count():
                raise ConfigError(f"GPU {index} does not exist: this machine has {torch.cuda.device_count()}")
            torch.cuda.set_device(index)
            return torch.device("cuda", index)
    return torch.device(device)
