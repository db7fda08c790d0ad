"""Mixed precision for the training loop: ``torch.autocast`` around forward and loss, and for fp16 a gradient
scaler (CUDA only; config validation refuses fp16 on the CPU before any process starts).

The weights, their gradients and the optimizer stay float32 ("master weights", Micikevicius et al. 2018); only
the arithmetic of the forward pass (and so the activations kept for backward) is bf16/fp16. The losses of
``core/maths/objectives.py`` are computed in float32 whatever the autocast dtype.
"""

from __future__ import annotations

import contextlib
from typing import Any

import torch

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}


def autocast_context(precision: str, device: torch.device) -> Any:
    """``torch.autocast`` for ``precision`` on ``device`` (a no-op context for fp32)."""
    if precision == "fp32":
        return contextlib.nullcontext()
    return torch.autocast(device.type if device.type in ("cuda", "cpu") else "cpu", dtype=DTYPES[precision])


class Precision:
    """The loop's precision: ``autocast()`` for forward + loss, and the fp16 gradient scaler (None otherwise)."""

    def __init__(self, precision: str, device: torch.device) -> None:
        self.name, self.device = precision, device
        self.scaler = torch.amp.GradScaler("cuda") if precision == "fp16" and device.type == "cuda" else None

    def autocast(self) -> Any:
        return autocast_context(self.name, self.device)

    def backward(self, loss: torch.Tensor) -> None:
        (self.scaler.scale(loss) if self.scaler is not None else loss).backward()

    def unscale(self, optimizer: torch.optim.Optimizer) -> None:
        """Bring the gradients back to their true size before anything reads them (clipping, noise, histograms)."""
        if self.scaler is not None:
            self.scaler.unscale_(optimizer)

    def step(self, optimizer: torch.optim.Optimizer, closure: Any = None) -> None:
        """The optimizer step; with the scaler, skipped when a gradient overflowed (and the scale lowered)."""
        if self.scaler is None:
            optimizer.step(closure)
            return
        self.scaler.step(optimizer)
        self.scaler.update()

    def state_dict(self) -> dict[str, Any]:
        return self.scaler.state_dict() if self.scaler is not None else {}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        if self.scaler is not None and state:
            self.scaler.load_state_dict(state)
