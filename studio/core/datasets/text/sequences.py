"""Growing-prefix (n-gram) training pairs and the unigram baseline a language model must beat."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


def pad_left(ids: Sequence[int], length: int) -> list[int]:
    """The last ``length`` ids, padded with 0 in front (pre-padding: the newest word is last)."""
    ids = list(ids)[-length:]
    return [0] * (length - len(ids)) + ids


def prefix_pairs(encoded: Sequence[Sequence[int]], length: int) -> tuple[np.ndarray, np.ndarray]:
    """For each line w1…wn, the pairs (w1 → w2), (w1 w2 → w3), …: inputs (N, length) int64
    pre-padded, targets (N,) int64."""
    xs, ys = [], []
    for ids in encoded:
        for i in range(1, len(ids)):
            xs.append(pad_left(ids[:i], length))
            ys.append(ids[i])
    x = np.array(xs, dtype=np.int64).reshape(-1, length)
    return x, np.array(ys, dtype=np.int64)


def unigram_perplexity(train_targets: np.ndarray, eval_targets: np.ndarray, vocab_size: int) -> float:
    """Perplexity on ``eval_targets`` of the word frequencies of ``train_targets``: what a model that
    ignores the context achieves. Add-k smoothed over the vocabulary, with the k (1, 0.1, 0.01, 0.001)
    that suits ``eval_targets`` best — a baseline as strong as a unigram model can be."""
    if len(eval_targets) == 0:
        return math.nan
    counts = np.bincount(train_targets, minlength=vocab_size).astype(np.float64)
    best = math.inf
    for k in (1.0, 0.1, 0.01, 0.001):
        probs = (counts + k) / (counts.sum() + k * vocab_size)
        best = min(best, float(math.exp(-np.log(probs[eval_targets]).mean())))
    return best


def token_windows(encoded: Sequence[Sequence[int]], context: int, ignore: int = -100) -> tuple[np.ndarray, np.ndarray]:
    """Windows for a model that predicts at every position: each token list (a line, or a whole stream) is cut
    into pieces of ``context`` + 1 tokens overlapping by one; inputs are a piece but its last token, targets the
    same piece shifted by one. Short pieces are padded at the end: inputs with 0, targets with ``ignore``
    (positions that do not count). Every token but a list's first is a target exactly once. Inputs and targets
    (N, context) int64."""
    xs, ys = [], []
    for ids in encoded:
        for start in range(0, max(len(ids) - 1, 0), context):
            piece = list(ids[start:start + context + 1])
            pad = context + 1 - len(piece)
            xs.append(piece[:-1] + [0] * pad)
            ys.append(piece[1:] + [ignore] * pad)
    return (np.array(xs, dtype=np.int64).reshape(-1, context), np.array(ys, dtype=np.int64).reshape(-1, context))
