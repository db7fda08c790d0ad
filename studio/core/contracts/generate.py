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
    # the final model predicts barely better than the corpus's token frequencies: (its validation perplexity, theirs)
    undertrained: NotRequired[tuple[float, float] | None]

UNDERTRAINED = 0.8  # a language model whose validation perplexity is above this share of the unigram model's has
# learned little beyond which tokens are common: its text is mostly the commonest tokens ("the the the", "a a a")


def is_blank(words: list[str]) -> bool:
    """Whether the new tokens are nothing but spaces and line ends (or none at all)."""
    return not "".join(words).strip()


def undertrained(val_perplexity: float | None, unigram: float | None) -> tuple[float, float] | None:
    """(the run's, the unigram model's) validation perplexity when the run is barely better than token frequencies,
    else None (also when either is unknown)."""
    if not val_perplexity or not unigram or val_perplexity != val_perplexity:
        return None
    return (float(val_perplexity), float(unigram)) if val_perplexity > UNDERTRAINED * unigram else None


def result_notes(result: GenerateResult) -> list[str]:
    """The sentences the GUI and the CLI add to a generation: blank output, an undertrained run."""
    return [s for s in (blank_sentence(result), undertrained_sentence(result)) if s]


def undertrained_sentence(result: GenerateResult) -> str:
    """What to tell a person whose run predicts barely better than token frequencies ('' otherwise)."""
    weak = result.get("undertrained")
    if not weak:
        return ""
    unit = "character" if result.get("tokenizer") == "char" else "word"
    return (f"The run predicts barely better than the corpus's {unit} frequencies (validation perplexity "
            f"{weak[0]:.1f} against their {weak[1]:.1f}), so it mostly repeats the commonest {unit}s; train it for "
            "more steps.")


def blank_sentence(result: GenerateResult) -> str:
    """What to tell a person whose generation added only blank space ('' when it added text): the GUI's and the
    CLI's one sentence."""
    if not result.get("blank"):
        return ""
    what = "characters" if result.get("tokenizer") == "char" else "tokens"
    return (f"The run generated only blank space ({len(result['words'])} {what} of spaces and line ends): it has "
            "not learned enough to write yet; train it for more steps.")
