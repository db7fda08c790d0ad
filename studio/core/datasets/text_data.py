"""Text datasets for next-word prediction (workers only: torch).

Lines are split into train/val/test with a fixed seed (the same lines in every run, so a run's
vocabulary can be rebuilt from its config when it generates text); the vocabulary is fitted on the
training lines; every line becomes its growing prefixes, pre-padded to ``max_len`` words.
"""

from __future__ import annotations

import numpy as np
import torch

from studio.core.datasets.arrays import ArrayData
from studio.core.text.sequences import prefix_pairs, unigram_perplexity
from studio.core.text.store import corpus_lines
from studio.core.text.tokenizer import Vocabulary

SPLIT_SEED = 0


def split_lines(lines: list[str], val_fraction: float, test_fraction: float) -> tuple[list[str], ...]:
    """(train, val, test) lines by a fixed seeded shuffle."""
    order = np.random.default_rng(SPLIT_SEED).permutation(len(lines))
    n_test, n_val = round(len(lines) * test_fraction), round(len(lines) * val_fraction)
    pick = [lines[i] for i in order]
    return pick[n_test + n_val:], pick[n_test:n_test + n_val], pick[:n_test]


def load_text(name: str, seed: int = 0, vocab_size: int = 1000, max_len: int = 16, val_fraction: float = 0.1,
              test_fraction: float = 0.1) -> ArrayData:
    """The corpus ``name`` as (prefix → next word) pairs; ``classes`` is the vocabulary."""
    train, val, test = split_lines(corpus_lines(name), val_fraction, test_fraction)
    vocab = Vocabulary.fit(train, vocab_size)

    def pairs(lines: list[str]) -> tuple[torch.Tensor, torch.Tensor]:
        x, y = prefix_pairs([vocab.encode(s) for s in lines], max_len)
        return torch.from_numpy(x), torch.from_numpy(y)

    (xt, yt), (xv, yv), (xs, ys) = pairs(train), pairs(val), pairs(test)
    baseline = unigram_perplexity(yt.numpy(), yv.numpy(), len(vocab))
    return ArrayData(xt, yt, xs, ys, classes=vocab.tokens, x_val=xv, y_val=yv, meta={
        "name": name, "task": "next_word", "normalise": False, "max_len": max_len,
        "lines": {"train": len(train), "val": len(val), "test": len(test)},
        "unigram_val_perplexity": baseline, "source": "text corpus " + name,
    })
