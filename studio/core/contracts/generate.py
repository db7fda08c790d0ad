"""Text generation by a next-word run: request and result (``engine/tasks/generate.py``). Torch-free."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NotRequired, TypedDict

MAX_WORDS = 1000
MAX_TOP_K = 100_000  # top-k sampling: the k most likely tokens (0: all of them)


@dataclass(frozen=True)
class GenerateRequest:
    """Continue ``seed_text`` by ``n_words`` tokens (``temperature`` 0: greedy; sampling from the ``top_k`` most
    likely, 0: all) with the run in ``run_dir``."""

    run_dir: str
    seed_text: str
    n_words: int = 8
    temperature: float = 0.0
    sample_seed: int | None = None
    checkpoint: str | None = None
    device: str = "cpu"
    top_k: int = 0


class GenerateResult(TypedDict):
    run_id: str
    checkpoint: str
    seed: str
    words: list[str]
    text: str
    temperature: float
    top_k: int
    tokenizer: str  # word (joined with spaces) or char (joined as they are)
    oov_in_seed: list[str]
    vocab_size: int
    seconds: float
    blank: NotRequired[bool]  # every new token is a space or a line end: the run has not learned to write yet


def is_blank(words: list[str]) -> bool:
    """Whether the new tokens are nothing but spaces and line ends (or none at all)."""
    return not "".join(words).strip()


def blank_sentence(result: GenerateResult) -> str:
    """What to tell a person whose generation added only blank space ('' when it added text): the GUI's and the
    CLI's one sentence."""
    if not result.get("blank"):
        return ""
    what = "characters" if result.get("tokenizer") == "char" else "tokens"
    return (f"The run generated only blank space ({len(result['words'])} {what} of spaces and line ends): it has "
            "not learned enough to write yet; train it for more steps.")
