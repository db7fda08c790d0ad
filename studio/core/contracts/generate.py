"""Text generation by a next-word run: request and result (``engine/tasks/generate.py``). Torch-free."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

MAX_WORDS = 1000


@dataclass(frozen=True)
class GenerateRequest:
    """Continue ``seed_text`` by ``n_words`` words (``temperature`` 0: greedy) with the run in ``run_dir``."""

    run_dir: str
    seed_text: str
    n_words: int = 8
    temperature: float = 0.0
    sample_seed: int | None = None
    checkpoint: str | None = None
    device: str = "cpu"


class GenerateResult(TypedDict):
    run_id: str
    checkpoint: str
    seed: str
    words: list[str]
    text: str
    temperature: float
    oov_in_seed: list[str]
    vocab_size: int
    seconds: float
