"""A word tokenizer with a vocabulary cap: index 0 pads, index 1 stands for every word out of
the vocabulary (OOV), then the most frequent words of the training lines."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

PAD, OOV = "<pad>", "<oov>"
_WORD = re.compile(r"[a-z0-9]+(?:['’][a-z]+)?")


def words(line: str) -> list[str]:
    """Lower-case words; punctuation is dropped, apostrophes inside a word kept ("don't")."""
    return _WORD.findall(line.lower())


class Vocabulary:
    """Word ↔ index, capped at ``size`` entries (PAD and OOV included)."""

    def __init__(self, tokens: list[str]) -> None:
        if tokens[:2] != [PAD, OOV]:
            raise ValueError("a vocabulary starts with the padding and OOV tokens")
        self.tokens = list(tokens)
        self.index = {w: i for i, w in enumerate(self.tokens)}

    @classmethod
    def fit(cls, lines: Iterable[str], size: int) -> Vocabulary:
        """The ``size`` − 2 most frequent words (ties: first seen first)."""
        counts = Counter(w for line in lines for w in words(line))
        return cls([PAD, OOV] + [w for w, _ in counts.most_common(max(size - 2, 0))])

    def __len__(self) -> int:
        return len(self.tokens)

    def encode(self, line: str) -> list[int]:
        return [self.index.get(w, 1) for w in words(line)]

    def decode(self, ids: Iterable[int]) -> list[str]:
        return [self.tokens[i] for i in ids]

    def split(self, text: str) -> list[str]:
        """The tokens of ``text`` (its words)."""
        return words(text)


class CharVocabulary(Vocabulary):
    """Character ↔ index for character-level models: every character is a token (case, punctuation and the
    space kept; ``\\n`` ends a line), capped at the ``size`` − 2 most frequent ones."""

    @classmethod
    def fit(cls, lines: Iterable[str], size: int) -> CharVocabulary:
        counts = Counter(c for line in lines for c in line + LINE_END)
        return cls([PAD, OOV] + [c for c, _ in counts.most_common(max(size - 2, 0))])

    def encode(self, line: str) -> list[int]:
        return [self.index.get(c, 1) for c in line]

    def split(self, text: str) -> list[str]:
        """The tokens of ``text`` (its characters)."""
        return list(text)


LINE_END = "\n"  # the character that separates lines in a character-level stream
TOKENIZERS = ("word", "char")


def vocabulary_for(tokenizer: str, tokens: list[str]) -> Vocabulary:
    """The vocabulary a run's dataset built (its ``classes``), as the right tokenizer."""
    return CharVocabulary(tokens) if tokenizer == "char" else Vocabulary(tokens)


def fit_vocabulary(tokenizer: str, lines: Iterable[str], size: int) -> Vocabulary:
    return (CharVocabulary if tokenizer == "char" else Vocabulary).fit(lines, size)
