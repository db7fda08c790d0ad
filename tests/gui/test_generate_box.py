"""The Generate box (issue 33): offered for the runs of models that write the next token, never for bert_mlm (a
masked LM: left to right it wrote "the the the…"); a generation of only blank space says so in one sentence."""

from __future__ import annotations

from studio.core.config import RunConfig
from studio.core.contracts.generate import blank_sentence
from tests.unit.test_generate_blank import result


def run_of(window, model: str, data: str) -> str:
    config = RunConfig.from_dict({"data": {"name": data}, "model": {"name": model}})
    return window.session.store.create_run(config, "").id


def test_generate_is_offered_for_next_word_models_only(window):
    box = window.generate_box
    for model, data, offered in (("gpt_lm", "fortunes", True), ("lstm_lm", "fortunes", True),
                                 ("bert_mlm", "masked_lm", False), ("mlp", "moons", False)):
        window.session.set_selection([run_of(window, model, data)])
        assert box.isVisibleTo(window) is offered, model


def test_a_blank_generation_says_so_instead_of_showing_nothing(window):
    box = window.generate_box
    box.show_result(result([" "] * 80))
    shown = box.output.text()
    assert blank_sentence(result([" "] * 80)) in shown and "<b>" not in shown
    box.show_result(result(list("he sat")))
    assert "<b>he sat</b>" in box.output.text() and "blank space" not in box.output.text()
