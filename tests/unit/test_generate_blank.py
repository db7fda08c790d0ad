"""A generation of only blank space (an undertrained character model: the seed, then 80 spaces), or from a run that
predicts barely better than word frequencies ("the the the…"), says so in one sentence, in the CLI as in the window
(issue 33), instead of output that looks like nothing happened or like all the model can do."""

from __future__ import annotations

from typing import Any

import pytest

from studio.cli import main
from studio.core.contracts.generate import blank_sentence, is_blank, result_notes, undertrained


def result(words: list[str]) -> dict[str, Any]:
    return {"run_id": "r1", "checkpoint": "final", "seed": "The ", "words": words, "text": "The " + "".join(words),
            "temperature": 0.0, "top_k": 0, "tokenizer": "char", "oov_in_seed": [], "vocab_size": 60,
            "seconds": 0.1, "blank": is_blank(words)}


def test_only_spaces_and_line_ends_are_blank():
    assert is_blank([" "] * 80) and is_blank([" ", "\n", "\t"]) and is_blank([])
    assert not is_blank([" ", "a", " "])
    assert blank_sentence(result([" "] * 80)) == ("The run generated only blank space (80 characters of spaces and "
                                                  "line ends): it has not learned enough to write yet; train it for "
                                                  "more steps.")
    assert blank_sentence(result(list("the cat"))) == ""


@pytest.mark.parametrize("words, warned", [([" "] * 80, True), (list("he sat"), False)])
def test_the_cli_says_a_blank_generation_in_one_line(monkeypatch, capsys, tmp_path, words, warned):
    from studio.engine.tasks import generate  # torch: when the test runs, never at collection

    monkeypatch.setattr(generate, "generate", lambda *args, **kwargs: result(words))
    (tmp_path / "config.toml").write_text("")
    monkeypatch.setattr("studio.cli._shared.run_dir_of", lambda _run: tmp_path)
    assert main(["generate", "r1", "--seed", "The ", "--words", str(len(words))]) == 0
    out, err = capsys.readouterr()
    assert out == "The " + "".join(words) + "\n"
    warnings = [line for line in err.splitlines() if line.startswith("studio: warning:")]
    assert warnings == ([f"studio: warning: {blank_sentence(result(words))}"] if warned else [])


def test_a_run_barely_better_than_word_frequencies_is_called_undertrained():
    """The window's gpt_lm defaults on the bundled corpus: 25 steps, validation perplexity 85.7 against 87.3 for
    the word frequencies alone, and Generate wrote "the the the…" with no sign why."""
    assert undertrained(85.7, 87.3) == (85.7, 87.3) and undertrained(35.4, 51.0) is None
    assert undertrained(None, 87.3) is None and undertrained(40.0, None) is None
    assert undertrained(float("nan"), 5.0) is None
    weak = {**result(["the"] * 8), "tokenizer": "word", "undertrained": (85.7, 87.3)}
    assert result_notes(weak) == ["The run predicts barely better than the corpus's word frequencies (validation "
                                  "perplexity 85.7 against their 87.3), so it mostly repeats the commonest words; "
                                  "train it for more steps."]
    assert result_notes(result(list("he sat"))) == []
