"""Studio's text datasets tokenized by a Hugging Face model folder's own tokenizer (``[model] name = "hf"`` with a
folder that has one: tokenizer.json, vocab.txt …). The lines and their splits are Studio's (the same seeded
shuffle as with its own vocabulary); only the ids differ. Workers only: imports torch and transformers.

Labelled text becomes rows of ``max_len + 1`` ids (the tokenizer's special tokens included, padded with its pad
id) and class ids; a corpus becomes windows of ``sequence`` ids, every position predicting the next (the
tokenizer's whole vocabulary are the classes).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch

from studio.core.datasets.arrays import ArrayData
from studio.core.maths.objectives import IGNORE

TOKENIZER_FILES = ("tokenizer.json", "vocab.txt", "vocab.json", "spiece.model", "sentencepiece.bpe.model")


def has_tokenizer(folder: str | Path) -> bool:
    """Whether a model folder holds a tokenizer of its own."""
    return any((Path(folder) / name).is_file() for name in TOKENIZER_FILES)


def vocabulary_of(tokenizer: Any) -> list[str]:
    """The tokenizer's tokens in id order (ids without a token are named ``<id N>``)."""
    by_id = {i: t for t, i in tokenizer.get_vocab().items()}
    return [by_id.get(i, f"<id {i}>") for i in range(len(tokenizer))]


def load_tokenized(name: str, labelled: bool, folder: str | Path, params: dict[str, Any],
                   sequence: int = 0) -> ArrayData:
    """The dataset ``name`` (its data section's ``params``) tokenized by the tokenizer in ``folder``."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(folder))
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    vocabulary = vocabulary_of(tokenizer)
    val_fraction, test_fraction = float(params.get("val_fraction", 0.1)), float(params.get("test_fraction", 0.1))
    meta: dict[str, Any] = {"name": name, "normalise": False, "pad_id": pad, "tokens": "the folder's tokenizer",
                            "source": f"{name} tokenized by {Path(folder).name}'s tokenizer"}
    if labelled:
        from studio.core.datasets.bert_data import split_indices
        from studio.core.datasets.text.labelled import labelled_lines

        data = labelled_lines(name)
        train, val, test = split_indices(len(data.lines), val_fraction, test_fraction)
        train = train[:max(round(len(train) * float(params.get("label_fraction", 1.0))), 1)]
        max_len = int(params.get("max_len", 32)) + 1
        ids = tokenizer(data.lines, truncation=True, max_length=max_len, padding="max_length")["input_ids"]
        x = torch.tensor(ids, dtype=torch.int64)
        y = torch.tensor(data.labels, dtype=torch.int64)
        return ArrayData(x[train], y[train], x[test], y[test], classes=data.classes, x_val=x[val], y_val=y[val],
                         meta={**meta, "max_len": max_len, "vocabulary": vocabulary})
    from studio.core.datasets.text.sequences import token_windows
    from studio.core.datasets.text.store import corpus_lines
    from studio.core.datasets.text_data import split_lines

    parts = split_lines(corpus_lines(name), val_fraction, test_fraction)

    def windows(lines: list[str]) -> tuple[torch.Tensor, torch.Tensor]:
        encoded = [tokenizer(line, add_special_tokens=False)["input_ids"] for line in lines]
        x, y = token_windows(encoded, sequence, IGNORE)
        return torch.from_numpy(np.asarray(x)), torch.from_numpy(np.asarray(y))

    (xt, yt), (xv, yv), (xs, ys) = (windows(p) for p in parts)
    return ArrayData(xt, yt, xs, ys, classes=vocabulary, x_val=xv, y_val=yv,
                     meta={**meta, "task": "tokens", "max_len": sequence, "context": sequence})
