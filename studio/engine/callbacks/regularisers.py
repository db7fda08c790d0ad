"""Regularisers that act on the gradients, as callbacks: gradient clipping and gradient noise.

Both run in ``on_after_backward``, after DDP has averaged the gradients, so every rank changes
them the same way (the noise comes from a generator seeded alike on every rank).
"""

from __future__ import annotations

import torch

from studio.engine.callbacks.base import Callback
from studio.engine.loop.trainer import Trainer


class GradientClipping(Callback):
    """Rescale the gradient so its global L2 norm is at most ``max_norm`` (Pascanu et al. 2013)."""

    stage = "regularise"

    def __init__(self, max_norm: float) -> None:
        self.max_norm = max_norm

    def describe(self) -> str:
        return f"rescales the gradient to a global L2 norm of at most {self.max_norm:g}"

    def on_after_backward(self, t: Trainer) -> None:
        torch.nn.utils.clip_grad_norm_([p for p in t.net.parameters() if p.grad is not None], self.max_norm)


class GradientNoise(Callback):
    """Add Gaussian noise to the gradient, g ← g + N(0, σ_t²), σ_t² = η / (1 + t)^γ with γ = 0.55
    (Neelakantan et al. 2015, 'Adding Gradient Noise Improves Learning for Very Deep Networks')."""

    gamma = 0.55
    stage = "regularise"
    runs_after = (GradientClipping,)  # the noise is added to the clipped gradient
    state_key = "GradientNoise"

    def __init__(self, eta: float, seed: int) -> None:
        self.eta, self.seed = eta, seed
        self.generator: torch.Generator | None = None
        self._saved: torch.Tensor | None = None  # a resumed run's generator state

    def describe(self) -> str:
        return f"adds Gaussian noise to the gradient, σ² = {self.eta:g} / (1 + t)^{self.gamma}"

    def state_dict(self) -> dict[str, torch.Tensor]:
        return {"generator": self.generator.get_state()} if self.generator is not None else {}

    def load_state_dict(self, state: dict[str, torch.Tensor]) -> None:
        self._saved = state.get("generator")

    def on_train_start(self, t: Trainer) -> None:
        self.generator = torch.Generator(device=t.ctx.device).manual_seed(self.seed + 7919)
        if self._saved is not None:
            self.generator.set_state(self._saved)

    def sigma(self, step: int) -> float:
        return (self.eta / (1 + step) ** self.gamma) ** 0.5

    @torch.no_grad()
    def on_after_backward(self, t: Trainer) -> None:
        sigma = self.sigma(t.step)
        for p in t.net.parameters():
            if p.grad is not None:
                p.grad.add_(torch.randn(p.grad.shape, generator=self.generator, device=p.grad.device,
                                        dtype=p.grad.dtype), alpha=sigma)
