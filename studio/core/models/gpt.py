"""``gpt_lm``: a decoder-only Transformer language model (Radford et al. 2018, 2019).

Token ids (B, T), T ≤ ``context``, 0 = padding at the end of a line → token + learned position embeddings →
dropout → ``layers`` pre-LN causal blocks (core/models/transformer.py) → LayerNorm → a linear head over the
vocabulary at every position: outputs (B, T, V), the logits of token t+1 given tokens 1…t. Attention is causal, so
a real token never sees the padding after it and no padding mask is needed (the fast fused kernel stays on).
With ``tie_weights`` the head reuses the token embedding matrix (Press & Wolf 2017), as GPT-2 does.
"""

from __future__ import annotations

import torch
from torch import nn

from studio.core.models.transformer import Stack


class GPT(nn.Module):
    def __init__(self, vocab: int, context: int, d_model: int, layers: int, heads: int, dropout: float,
                 tie_weights: bool) -> None:
        super().__init__()
        self.context = context
        self.embed = nn.Embedding(vocab, d_model)
        self.position = nn.Embedding(context, d_model)
        self.drop = nn.Dropout(dropout)
        self.stack = Stack(d_model, layers, heads, dropout, causal=True)
        self.head = nn.Linear(d_model, vocab, bias=False)
        self.apply(_init)
        for name, p in self.named_parameters():  # GPT-2: residual projections scaled by 1/√(2·layers)
            if name.endswith(("attn.proj.weight", "mlp.2.weight")):
                nn.init.normal_(p, 0.0, 0.02 / (2 * layers) ** 0.5)
        if tie_weights:
            self.head.weight = self.embed.weight

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        t = x.shape[1]
        if t > self.context:
            raise ValueError(f"gpt_lm reads at most {self.context} tokens; got {t}")
        pos = torch.arange(t, device=x.device)
        h = self.drop(self.embed(x.long()) + self.position(pos))
        return self.head(self.stack(h))


def _init(module: nn.Module) -> None:
    if isinstance(module, nn.Linear):
        nn.init.normal_(module.weight, 0.0, 0.02)
        if module.bias is not None:
            nn.init.zeros_(module.bias)
    elif isinstance(module, nn.Embedding):
        nn.init.normal_(module.weight, 0.0, 0.02)


def build_gpt_lm(input_shape: tuple[int, ...], num_classes: int, layers: int = 2, heads: int = 4,
                 d_model: int = 128, context: int = 24, dropout: float = 0.1, tie_weights: bool = True) -> nn.Module:
    """``num_classes`` is the vocabulary; ``input_shape`` is (context,) (the dataset's windows)."""
    if len(input_shape) != 1:
        from studio.core.models.language import raise_shape

        raise_shape(input_shape)
    return GPT(num_classes, context, d_model, layers, heads, dropout, tie_weights)
