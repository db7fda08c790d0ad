"""BERT's datasets (workers only: torch): masked-LM rows from a text corpus for ``bert_mlm``, and labelled text
as [CLS]-first token rows for ``bert_classifier`` (core/datasets/text/bert_text.py says how lines become ids).

Lines are split into train/val/test with the fixed seed of core/datasets/text_data.py. A labelled corpus used for
pretraining gives only its training lines' text (no labels), split with the same fractions, so the lines a
classifier is tested on are never seen in pretraining. ``vocab_from`` tokenizes labelled text with a finished
``bert_mlm`` run's vocabulary, rebuilt from ``vocab_source``: the data settings of that run, which the run's loader
reads from the store (``core/runs/lineage.py``; the same lines and cap give the same words). A dataset never
opens the run store itself.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from studio.core.datasets.arrays import ArrayData
from studio.core.datasets.text import bert_text
from studio.core.datasets.text.labelled import is_labelled, labelled_lines
from studio.core.datasets.text.store import corpus_lines
from studio.core.datasets.text.tokenizer import Vocabulary
from studio.core.errors import ConfigError

SPLIT_SEED = 0  # core/datasets/text_data.py's
MLM_DATASET = "masked_lm"


def split_indices(n: int, val_fraction: float, test_fraction: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    order = np.random.default_rng(SPLIT_SEED).permutation(n)
    n_test, n_val = round(n * test_fraction), round(n * val_fraction)
    return order[n_test + n_val:], order[n_test:n_test + n_val], order[:n_test]


def corpus_splits(corpus: str, val_fraction: float, test_fraction: float) -> tuple[list[str], ...]:
    """(train, val, test) lines of a corpus: a text corpus, or a labelled one's text."""
    lines = labelled_lines(corpus).lines if is_labelled(corpus) else corpus_lines(corpus)
    return tuple([lines[i] for i in part] for part in split_indices(len(lines), val_fraction, test_fraction))


def mlm_vocabulary(corpus: str, vocab_size: int, val_fraction: float, test_fraction: float) -> Vocabulary:
    return bert_text.fit_vocabulary(corpus_splits(corpus, val_fraction, test_fraction)[0], vocab_size)


def load_masked_lm(name: str, seed: int = 0, corpus: str = "fortune_sources", vocab_size: int = 2000,
                   max_len: int = 32, copies: int = 4, val_fraction: float = 0.1,
                   test_fraction: float = 0.1) -> ArrayData:
    """Masked-LM rows: inputs (N, max_len + 1) with [CLS] first and BERT's corruption, targets the original ids
    at the chosen positions, IGNORE elsewhere; ``copies`` differently masked copies of every line."""
    train, val, test = corpus_splits(corpus, val_fraction, test_fraction)
    vocab = bert_text.fit_vocabulary(train, vocab_size)
    rng = np.random.default_rng(seed)

    def rows(lines: list[str], n: int) -> tuple[torch.Tensor, torch.Tensor]:
        encoded = np.repeat(bert_text.encode_rows(vocab, lines, max_len), n, axis=0)
        x, y = bert_text.mask_tokens(encoded, len(vocab), rng)
        return torch.from_numpy(x), torch.from_numpy(y)

    (xt, yt), (xv, yv), (xs, ys) = rows(train, copies), rows(val, 1), rows(test, 1)
    return ArrayData(xt, yt, xs, ys, classes=vocab.tokens, x_val=xv, y_val=yv, meta={
        "name": name, "task": "tokens", "normalise": False, "max_len": max_len, "corpus": corpus,
        "lines": {"train": len(train), "val": len(val), "test": len(test)}, "masks": "static",
        "source": f"masked-LM rows of the text corpus {corpus}",
    })


def load_labelled_text(name: str, seed: int = 0, vocab_size: int = 2000, max_len: int = 32, vocab_from: str = "",
                       label_fraction: float = 1.0, val_fraction: float = 0.1, test_fraction: float = 0.1,
                       vocab_source: dict[str, Any] | None = None) -> ArrayData:
    """Labelled lines as [CLS]-first id rows (N, max_len + 1) and class ids; the vocabulary is fitted on the
    training lines, or is the ``vocab_from`` pretraining run's. ``label_fraction`` < 1 keeps the labels of only
    that share of the training lines (the first of the fixed shuffle: the same lines in every run), the setting
    where pretraining on all the text pays most."""
    del seed  # the split is fixed; nothing else is random
    data = labelled_lines(name)
    train, val, test = split_indices(len(data.lines), val_fraction, test_fraction)
    train = train[:max(round(len(train) * label_fraction), 1)]
    if vocab_from:
        if vocab_source is None:
            raise ConfigError(f"data.vocab_from names run {vocab_from}, whose vocabulary is read by the run's loader "
                              "(core/runs/lineage.load_run_data), not by the dataset")
        # the words a run keeps (core/runs/lineage_record.py), else the settings they are fitted from
        vocab = Vocabulary(list(vocab_source["tokens"])) if "tokens" in vocab_source else mlm_vocabulary(**vocab_source)
    else:
        vocab = bert_text.fit_vocabulary([data.lines[i] for i in train], vocab_size)
    x = torch.from_numpy(bert_text.encode_rows(vocab, data.lines, max_len))
    y = torch.tensor(data.labels, dtype=torch.int64)
    if len(train) == 0:
        raise ConfigError(f"{name} has too few lines for val_fraction {val_fraction} and test_fraction "
                          f"{test_fraction}")
    return ArrayData(x[train], y[train], x[test], y[test], classes=data.classes, x_val=x[val], y_val=y[val], meta={
        "name": name, "normalise": False, "max_len": max_len, "vocabulary": vocab.tokens,
        "vocab_from": vocab_from, "source": f"labelled text {name}",
    })
