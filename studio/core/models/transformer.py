"""The Transformer blocks every Studio Transformer (``gpt_lm``, ``bert_mlm``, ``vit``) is built from.

Pre-LayerNorm blocks (Xiong et al. 2020; GPT-2): ``x + Attn(LN(x))`` then ``x + MLP(LN(x))`` with a GELU MLP of
width ``4·d_model``. Attention runs through ``torch.nn.functional.scaled_dot_product_attention`` (flash/memory-
efficient kernels where the device has them); only while an :func:`attention_recorder` is open does a layer
compute ``softmax(QKᵀ/√d)`` itself, to hand the weights to the Attention view — same result, slower.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import torch
import torch.nn.functional as F  # noqa: N812 - torch's own spelling
from torch import nn

from studio.core.models.shape_rules import check_heads  # torch-free: the launcher checks it too


class SelfAttention(nn.Module):
    """Multi-head self-attention. ``pad`` (B, T), True at padding positions, is never attended to."""

    def __init__(self, d_model: int, heads: int, dropout: float = 0.0, causal: bool = False) -> None:
        super().__init__()
        check_heads(d_model, heads)
        self.heads, self.causal, self.dropout = heads, causal, dropout
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)
        self.record = False
        self.weights: torch.Tensor | None = None  # (B, heads, T, T) of the last forward while recording

    def forward(self, x: torch.Tensor, pad: torch.Tensor | None = None) -> torch.Tensor:
        b, t, c = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        allowed = None  # (B, 1, T, T) or broadcastable, True = may attend
        if pad is not None:
            allowed = ~pad[:, None, None, :]
        if self.causal and (allowed is not None or self.record):
            lower = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()
            allowed = lower if allowed is None else allowed & lower
        p = self.dropout if self.training else 0.0
        if self.record:
            scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
            if allowed is not None:
                scores = scores.masked_fill(~allowed, float("-inf"))
            weights = torch.softmax(scores.float(), dim=-1).nan_to_num(0.0).to(q.dtype)
            self.weights = weights.detach()
            y = F.dropout(weights, p, self.training) @ v
        else:
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed, dropout_p=p,
                                               is_causal=self.causal and allowed is None)
        return self.proj(y.transpose(1, 2).reshape(b, t, c))


class Block(nn.Module):
    """``x + Attn(LN(x))``, then ``x + MLP(LN(x))`` (GELU, 4× wide), dropout on both branches."""

    def __init__(self, d_model: int, heads: int, dropout: float = 0.0, causal: bool = False) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = SelfAttention(d_model, heads, dropout, causal)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model))
        self.drop = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor, pad: torch.Tensor | None = None) -> torch.Tensor:
        x = x + self.drop(self.attn(self.ln1(x), pad))
        return x + self.drop(self.mlp(self.ln2(x)))


class Stack(nn.Module):
    """``layers`` blocks and a final LayerNorm."""

    def __init__(self, d_model: int, layers: int, heads: int, dropout: float = 0.0, causal: bool = False) -> None:
        super().__init__()
        self.blocks = nn.ModuleList(Block(d_model, heads, dropout, causal) for _ in range(layers))
        self.ln = nn.LayerNorm(d_model)

    def forward(self, x: torch.Tensor, pad: torch.Tensor | None = None) -> torch.Tensor:
        for block in self.blocks:
            x = block(x, pad)
        return self.ln(x)


def attention_layers(model: nn.Module) -> list[SelfAttention]:
    """The model's attention layers, first to last (through DDP and ``torch.compile`` wrappers)."""
    return [m for m in model.modules() if isinstance(m, SelfAttention)]


@contextmanager
def attention_recorder(model: nn.Module) -> Iterator[Callable[[], list[torch.Tensor]]]:
    """While open, each attention layer keeps its weights; the yielded function returns them after a forward
    (one ``(B, heads, T, T)`` tensor per layer)."""
    layers = attention_layers(model)
    for layer in layers:
        layer.record, layer.weights = True, None
    try:
        yield lambda: [layer.weights for layer in layers if layer.weights is not None]
    finally:
        for layer in layers:
            layer.record, layer.weights = False, None


def has_attention(model: nn.Module) -> bool:
    """Whether the model's attention can be read: Studio's attention layers, or a model that gives its maps itself
    (``attention_maps(x)``: a Hugging Face model, core/models/library_models.HFModel)."""
    return bool(attention_layers(model)) or callable(getattr(model, "attention_maps", None))


def attention_of(model: nn.Module, x: torch.Tensor) -> list[torch.Tensor]:
    """One forward of ``model`` on ``x`` and its attention, one ``(B, heads, T, T)`` tensor per layer."""
    own = getattr(model, "attention_maps", None)
    if callable(own):
        return list(own(x))
    with attention_recorder(model) as weights:
        model(x)
        return weights()


def non_embedding_parameters(model: nn.Module) -> int:
    """Kaplan et al.'s N: the parameters outside the token and position embeddings (and a tied output head)."""
    skip = {id(p) for m in model.modules() if isinstance(m, nn.Embedding) for p in m.parameters()}
    return sum(p.numel() for p in model.parameters() if id(p) not in skip)
