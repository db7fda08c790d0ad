"""Next-word models: Embedding → LSTM/GRU → a softmax layer over the vocabulary.

Inputs are pre-padded word indices (N, max_len) with 0 as padding; the recurrent state after the
last position (the newest word) predicts the next word.
"""

from __future__ import annotations

import torch
from torch import nn


class RecurrentLM(nn.Module):
    def __init__(self, cell: str, vocab: int, embedding: int, hidden: int, layers: int, dropout: float) -> None:
        super().__init__()
        rnn = {"lstm": nn.LSTM, "gru": nn.GRU}[cell]
        self.embed = nn.Embedding(vocab, embedding, padding_idx=0)
        self.rnn = rnn(embedding, hidden, num_layers=layers, batch_first=True,
                       dropout=dropout if layers > 1 else 0.0)
        self.drop = nn.Dropout(dropout)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out, _ = self.rnn(self.embed(x.long()))
        return self.head(self.drop(out[:, -1]))


def _build(cell: str, input_shape: tuple[int, ...], num_classes: int, embedding: int, hidden: int, layers: int,
           dropout: float) -> nn.Module:
    if len(input_shape) != 1:
        raise_shape(input_shape)
    return RecurrentLM(cell, num_classes, embedding, hidden, layers, dropout)


def raise_shape(input_shape: tuple[int, ...]) -> None:
    from studio.core.errors import ConfigError

    raise ConfigError(f"a next-word model reads sequences of word indices (a text dataset such as fortunes); "
                      f"this dataset's inputs are {'×'.join(map(str, input_shape))}")


def build_lstm_lm(input_shape: tuple[int, ...], num_classes: int, embedding: int = 64, hidden: int = 128,
                  layers: int = 1, dropout: float = 0.2) -> nn.Module:
    return _build("lstm", input_shape, num_classes, embedding, hidden, layers, dropout)


def build_gru_lm(input_shape: tuple[int, ...], num_classes: int, embedding: int = 64, hidden: int = 128,
                 layers: int = 1, dropout: float = 0.2) -> nn.Module:
    return _build("gru", input_shape, num_classes, embedding, hidden, layers, dropout)
