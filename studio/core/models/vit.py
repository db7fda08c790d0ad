"""A Vision Transformer from scratch (Dosovitskiy et al. 2021, "An Image is Worth 16x16 Words").

The image is cut into ``patch`` × ``patch`` squares by a strided convolution (one linear map per patch), each
patch becomes a token of ``d_model`` numbers, a learned position embedding is added, a [CLS] token is put first
(``pool="cls"``) and the encoder (``core/models/transformer.Stack``, no causal mask) mixes them; the head reads
the [CLS] token's output, or the mean over the patch tokens (``pool="mean"``, as Zhai et al. 2022 recommend at
small scale). The Attention view reads the encoder's attention through ``attention_recorder``.
"""

from __future__ import annotations

import torch
from torch import nn

from studio.core.errors import ConfigError
from studio.core.models.shape_rules import check_patch
from studio.core.models.transformer import Stack, check_heads

POOLS = ("cls", "mean")


class ViT(nn.Module):
    """Patch embedding → [CLS] + positions → Transformer encoder → linear head."""

    def __init__(self, input_shape: tuple[int, ...], num_classes: int, patch: int = 7, d_model: int = 64,
                 depth: int = 4, heads: int = 4, pool: str = "cls", dropout: float = 0.0) -> None:
        super().__init__()
        channels, rows, cols = check_patch(input_shape, patch)
        check_heads(d_model, heads)
        if pool not in POOLS:
            raise ConfigError(f"pool must be one of {', '.join(POOLS)}; got {pool!r}")
        self.pool, self.grid = pool, (rows, cols)
        self.embed = nn.Conv2d(channels, d_model, patch, stride=patch)
        tokens = rows * cols + (pool == "cls")
        self.cls = nn.Parameter(torch.zeros(1, 1, d_model)) if pool == "cls" else None
        self.pos = nn.Parameter(torch.randn(1, tokens, d_model) * 0.02)
        self.drop = nn.Dropout(dropout)
        self.encoder = Stack(d_model, depth, heads, dropout, causal=False)
        self.head = nn.Linear(d_model, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        z = self.embed(x).flatten(2).transpose(1, 2)  # (B, patches, d_model), row by row
        if self.cls is not None:
            z = torch.cat([self.cls.expand(len(z), -1, -1), z], dim=1)
        z = self.encoder(self.drop(z + self.pos))
        return self.head(z[:, 0] if self.cls is not None else z.mean(dim=1))


def build_vit(input_shape: tuple[int, ...], num_classes: int, patch: int = 7, d_model: int = 64, depth: int = 4,
              heads: int = 4, pool: str = "cls", dropout: float = 0.0, init_from: str = "", frozen_epochs: int = 0,
              base_lr_factor: float = 1.0, init_weights: str = "") -> nn.Module:
    """``init_from``…``init_weights``: start from a finished run's weights (core/models/from_run.py)."""
    from studio.core.models.from_run import from_run

    return from_run(ViT(tuple(input_shape), num_classes, patch, d_model, depth, heads, pool, dropout), "vit",
                    num_classes, init_from, init_weights, frozen_epochs, base_lr_factor)
