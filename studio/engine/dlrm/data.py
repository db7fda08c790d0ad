"""Synthetic clicks with a structure the model can learn, drawn afresh for every step (an endless stream: the
training loss is also the loss on unseen samples).

Each sample has ``dense`` standard-normal features and one categorical value per table, drawn from a Zipf-like
law (row k with probability ∝ 1/(k+1): a few rows are hot, most are rare, as in click logs). Behind every row of
every table is a hidden vector of ``LATENT`` numbers (computed from a hash of the seed, the table and the row, so
that no table of them has to be stored), and behind the dense features a hidden linear map to one more. The
click's log-odds are a bias plus the sum of the pairwise dot products of these hidden vectors — exactly the
second-order interactions DLRM's dot products can represent — and the click is drawn with that probability. The
best possible loss (the Bayes loss: the entropy of the true probabilities) is estimated from the same stream."""

from __future__ import annotations

import math
from typing import Any

from studio.core.contracts.dlrm import LATENT

BIAS = -1.0  # about 30 % clicks
DENSE_STD = 1.0  # the spread of the dense features' linear part of the log-odds
LOGIT_STD = 1.5  # the spread of the pairwise part, whatever the number of tables
_MASK = (1 << 31) - 1


def _unit(x: Any) -> Any:
    """Uniform numbers in [−1, 1) from int64 tensor ``x`` (a hash: multiply, xor-shift, multiply, 31 bits)."""
    x = (x * 2654435761 + 12345) & _MASK
    x = x ^ (x >> 13)
    x = (x * 1274126177) & _MASK
    x = x ^ (x >> 16)
    return (x & 0xFFFFFF).float() / float(1 << 23) - 1.0


class ClickData:
    """The stream of one seed: ``batch(step, size)`` → dense [size, dense], indices [size, tables], clicks [size]."""

    def __init__(self, seed: int, tables: int, rows: int, dense: int, device: Any = "cpu") -> None:
        import torch

        self.seed, self.tables, self.rows, self.dense, self.device = seed, tables, rows, dense, device
        pairs = (tables + 1) * tables / 2
        # each hidden number uniform with variance s²; a pair's dot product has variance LATENT·s⁴
        self.scale = (LOGIT_STD ** 2 / (pairs * LATENT)) ** 0.25 * math.sqrt(3.0)
        gen = torch.Generator().manual_seed(seed * 7919 + 17)
        self.dense_map = (torch.randn(dense, LATENT, generator=gen) / math.sqrt(dense) * self.scale
                          / math.sqrt(3.0)).to(device)
        self.dense_weight = (torch.randn(dense, generator=gen) / math.sqrt(dense) * DENSE_STD).to(device)

    def hidden(self, idx: Any) -> Any:
        """The hidden vectors of the rows ``idx`` [n, tables] of every table: [n, tables, LATENT]."""
        import torch

        t = torch.arange(self.tables, device=idx.device).view(1, -1, 1)
        k = torch.arange(LATENT, device=idx.device).view(1, 1, -1)
        key = ((idx.unsqueeze(-1) * self.tables + t) * LATENT + k) * 1_000_003 + self.seed * 7_777_777
        return _unit(key) * self.scale

    def logits(self, dense: Any, idx: Any) -> Any:
        """The true log-odds: bias + the dense features' linear part + Σ over pairs of the hidden vectors' dot
        products."""
        vectors = [dense @ self.dense_map] + list(self.hidden(idx).unbind(1))
        total = sum(vectors)
        squares = sum((v * v).sum(1) for v in vectors)
        return BIAS + dense @ self.dense_weight + 0.5 * ((total * total).sum(1) - squares)

    def batch(self, step: int, size: int) -> tuple[Any, Any, Any]:
        """Step ``step``'s global batch (the same on every rank and in every mode)."""
        import torch

        gen = torch.Generator().manual_seed(self.seed * 1_000_003 + step)
        dense = torch.randn(size, self.dense, generator=gen)
        u = torch.rand(size, self.tables, generator=gen, dtype=torch.float64)
        idx = (torch.pow(float(self.rows), u).floor().long() - 1).clamp_(0, self.rows - 1)
        clicks = (torch.rand(size, generator=gen) < torch.sigmoid(self.logits(dense, idx))).float()
        return dense.to(self.device), idx.to(self.device), clicks.to(self.device)

    def floors(self, batches: int = 20, size: int = 4096) -> tuple[float, float, float]:
        """(the Bayes loss, the loss of predicting the mean click rate, the click rate), from ``batches`` batches
        of the stream's distribution (drawn with steps no training step uses)."""
        import torch

        probs = []
        for i in range(batches):
            dense, idx, _ = self.batch(-1 - i, size)
            probs.append(torch.sigmoid(self.logits(dense.cpu(), idx.cpu())).double())
        p = torch.cat(probs).clamp(1e-12, 1 - 1e-12)
        entropy = float(-(p * p.log() + (1 - p) * (1 - p).log()).mean())
        rate = float(p.mean())
        base = -(rate * math.log(rate) + (1 - rate) * math.log(1 - rate))
        return entropy, base, rate
