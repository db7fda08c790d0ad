"""Text corpora in the dataset cache and the bundled one.

A corpus is stored like an imported image dataset (``core/datasets/cache.py``, kind ``"text"``) but
its ``x`` array is the UTF-8 bytes of the lines joined by newlines; ``y`` and ``split`` are zeros, one
per line (the lines are split into train/val/test when a run loads them).
"""

from __future__ import annotations

from typing import Any

from studio.core.errors import DataError
from studio.core.host.paths import resource

BUNDLED = "fortunes"
BUNDLED_FILE = ("data", "fortunes_lines.txt")
KIND = "text"
VERSION = 1


def bundled_lines() -> list[str]:
    path = resource(*BUNDLED_FILE)
    try:
        return [s for s in path.read_text(encoding="utf-8").splitlines() if s.strip()]
    except OSError as err:
        raise DataError(f"the bundled text corpus {path} is missing or unreadable ({err}); reinstall Studio") from None


def cached_lines(name: str) -> list[str]:
    from studio.core.datasets import cache

    x = cache.load_arrays(name)["x"]
    return bytes(x).decode("utf-8").split("\n") if len(x) else []


def corpus_lines(name: str) -> list[str]:
    """The lines of the bundled corpus or of an imported one."""
    return bundled_lines() if name == BUNDLED else cached_lines(name)


def preview(name: str, count: int = 6, lines: list[str] | None = None) -> str:
    """What the data panel says about a text corpus: its size and its first lines."""
    lines = corpus_lines(name) if lines is None else lines
    shown = "\n".join(f"  · {s[:100]}" for s in lines[:count])
    return (f"{len(lines):,} lines, {sum(len(s.split()) for s in lines):,} words of text for next-word models "
            f"(lstm_lm, gru_lm: each line becomes its growing prefixes; gpt_lm: windows of its context). "
            f"First lines:\n{shown}")


def describe(m: dict[str, Any]) -> str:
    return (f"Imported text: {m['num_samples']:,} lines for next-word prediction with lstm_lm, gru_lm or gpt_lm "
            f"({m.get('description') or m.get('source', '')})")
