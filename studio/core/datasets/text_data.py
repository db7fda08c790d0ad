"""Text datasets for next-word prediction (workers only: torch).

Lines are split into train/val/test with a fixed seed (the same lines in every run, so a run's
vocabulary can be rebuilt from its config when it generates text); the vocabulary is fitted on the
training lines, of words or of characters (``tokenizer``). For a model that reads prefixes (lstm_lm, gru_lm)
every line becomes its growing prefixes, pre-padded to ``max_len`` tokens (``meta["task"] = "next_word"``). For
a model that predicts at every position (``sequence`` > 0: gpt_lm's ``context``) the data are windows of
``sequence`` tokens with the targets shifted by one (``meta["task"] = "tokens"``): each line on its own with words,
one stream of the split's lines joined by newlines with characters.
"""

from __future__ import annotations

import numpy as np
import torch

from studio.core.datasets.arrays import ArrayData
from studio.core.datasets.text.sequences import prefix_pairs, token_windows, unigram_perplexity
from studio.core.datasets.text.store import corpus_lines
from studio.core.datasets.text.tokenizer import LINE_END, fit_vocabulary
from studio.core.maths.objectives import IGNORE

SPLIT_SEED = 0


def split_lines(lines: list[str], val_fraction: float, test_fraction: float) -> tuple[list[str], ...]:
    """(train, val, test) lines by a fixed seeded shuffle."""
    order = np.random.default_rng(SPLIT_SEED).permutation(len(lines))
    n_test, n_val = round(len(lines) * test_fraction), round(len(lines) * val_fraction)
    pick = [lines[i] for i in order]
    return pick[n_test + n_val:], pick[n_test:n_test + n_val], pick[:n_test]


def load_text(name: str, seed: int = 0, vocab_size: int = 1000, max_len: int = 16, val_fraction: float = 0.1,
              test_fraction: float = 0.1, tokenizer: str = "word", sequence: int = 0) -> ArrayData:
    """The corpus ``name`` as (prefix → next token) pairs, or as shifted token windows of ``sequence`` tokens
    when it is > 0; ``classes`` is the vocabulary."""
    train, val, test = split_lines(corpus_lines(name), val_fraction, test_fraction)
    vocab = fit_vocabulary(tokenizer, train, vocab_size)

    def encoded(lines: list[str]) -> list[list[int]]:
        if sequence and tokenizer == "char":  # one stream: a window may cross a line end, "\n" is a token
            return [vocab.encode(LINE_END.join(lines))]
        return [vocab.encode(s) for s in lines]

    def pairs(lines: list[str]) -> tuple[torch.Tensor, torch.Tensor]:
        x, y = token_windows(encoded(lines), sequence, IGNORE) if sequence else prefix_pairs(encoded(lines), max_len)
        return torch.from_numpy(x), torch.from_numpy(y)

    (xt, yt), (xv, yv), (xs, ys) = pairs(train), pairs(val), pairs(test)
    counted_t, counted_v = yt[yt != IGNORE].numpy(), yv[yv != IGNORE].numpy()
    baseline = unigram_perplexity(counted_t, counted_v, len(vocab))
    return ArrayData(xt, yt, xs, ys, classes=vocab.tokens, x_val=xv, y_val=yv, meta={
        "name": name, "task": "tokens" if sequence else "next_word", "normalise": False,
        "max_len": sequence or max_len, "tokenizer": tokenizer, "context": sequence,
        "lines": {"train": len(train), "val": len(val), "test": len(test)},
        "unigram_val_perplexity": baseline, "source": "text corpus " + name,
    })
