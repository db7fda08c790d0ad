"""A tiny causal text Transformer built from ``Stack``, for the attention tests (its own module, so that the test
modules that register it import torch only when a test builds it)."""

from __future__ import annotations

import torch
from torch import nn

from studio.core.models.transformer import Stack


class TinyTextTransformer(nn.Module):
    """Token + position embeddings, a causal ``Stack``, the next token's scores from the last position."""

    def __init__(self, input_shape: tuple[int, ...], num_classes: int, d_model: int = 16, layers: int = 2,
                 heads: int = 2) -> None:
        super().__init__()
        self.tokens = nn.Embedding(num_classes, d_model)
        self.pos = nn.Parameter(torch.zeros(1, input_shape[0], d_model))
        self.stack = Stack(d_model, layers, heads, causal=True)
        self.head = nn.Linear(d_model, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.stack(self.tokens(x) + self.pos[:, : x.shape[1]])[:, -1])
