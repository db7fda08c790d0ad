"""BERT's text side, torch-free: a word vocabulary with [CLS] and [MASK], lines as [CLS]-first id rows, and the
masked-LM corruption (Devlin et al. 2019, §3.1).

Masks are **static**: drawn once when the dataset is built, from the run's seed, ``copies`` different masks per
line (Devlin et al.'s own pre-processing duplicated the data 10× with different masks; RoBERTa (Liu et al. 2019)
redraws the mask for every batch instead — "dynamic" — which needs a per-batch hook in the training loop; with
copies ≥ 4 on a corpus this small the difference is within noise). A seed gives the same masks in every run.
"""

from __future__ import annotations

import numpy as np

from studio.core.datasets.text.tokenizer import OOV, PAD, Vocabulary

CLS, MASK = "[CLS]", "[MASK]"
SPECIAL = (PAD, OOV, CLS, MASK)  # ids 0..3; words start at FIRST_WORD
CLS_ID, MASK_ID, FIRST_WORD = 2, 3, 4
IGNORE = -100  # the targets that do not count (core/maths/objectives.py's IGNORE)
CHOSEN, TO_MASK, TO_RANDOM = 0.15, 0.8, 0.1  # of the real tokens; of the chosen: → [MASK], → a random word


def fit_vocabulary(lines: list[str], size: int) -> Vocabulary:
    """The ``size`` − 4 most frequent words of ``lines`` after PAD, OOV, [CLS] and [MASK]."""
    words = Vocabulary.fit(lines, max(size - 2, 2)).tokens[2:]
    return Vocabulary([*SPECIAL, *words])


def is_bert_vocabulary(tokens: list[str]) -> bool:
    return tuple(tokens[:FIRST_WORD]) == SPECIAL


def encode_rows(vocab: Vocabulary, lines: list[str], max_len: int) -> np.ndarray:
    """(N, max_len + 1) int64: [CLS], then a line's first ``max_len`` word ids, then 0 (padding)."""
    out = np.zeros((len(lines), max_len + 1), dtype=np.int64)
    out[:, 0] = CLS_ID
    for i, line in enumerate(lines):
        ids = vocab.encode(line)[:max_len]
        out[i, 1:1 + len(ids)] = ids
    return out


def mask_tokens(rows: np.ndarray, vocab_size: int, rng: np.random.Generator,
                chosen: float = CHOSEN) -> tuple[np.ndarray, np.ndarray]:
    """BERT's corruption of (N, T) id rows: of the real word tokens (not padding, not [CLS]) each is chosen with
    probability ``chosen``; a chosen one becomes [MASK] (80 %), a random word (10 %) or stays (10 %). Returns
    (inputs, targets): targets are the original ids at the chosen positions and IGNORE everywhere else (a short
    line may have none chosen in one copy: it then adds nothing to the loss, as in BERT)."""
    real = (rows != 0) & (rows != CLS_ID)  # words, OOV included
    pick = real & (rng.random(rows.shape) < chosen)
    fate = rng.random(rows.shape)
    inputs = rows.copy()
    inputs[pick & (fate < TO_MASK)] = MASK_ID
    swap = pick & (fate >= TO_MASK) & (fate < TO_MASK + TO_RANDOM)
    inputs[swap] = rng.integers(FIRST_WORD, max(vocab_size, FIRST_WORD + 1), size=int(swap.sum()))
    targets = np.where(pick, rows, IGNORE)
    return inputs, targets
