"""A small language model for the precision benchmark (its own module, so that collecting the benchmark does not
import torch)."""

from __future__ import annotations

import torch
from torch import nn

from studio.core.models.transformer import Stack


class TokenTransformer(nn.Module):
    """Embeddings → Stack → a linear head per position: a small language model for the benchmark."""

    def __init__(self, vocab: int = 1000, d_model: int = 256, layers: int = 4, heads: int = 4) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model)
        self.stack = Stack(d_model, layers, heads, causal=True)
        self.head = nn.Linear(d_model, vocab)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.stack(self.embed(x))).flatten(0, 1)
