"""gpt_lm in the window: its form comes from the registry, bad settings get one sentence and no run, a
character-level run trains and the Generate box continues a seed with characters, sampling from the top k."""

from __future__ import annotations

import pytest

from studio.gui.app import commands


def _gpt(session, **params) -> None:
    session.set_choice("data", "fortunes")
    session.set_param("data", "tokenizer", "char")
    session.set_choice("model", "gpt_lm")
    for key, value in {"d_model": 16, "heads": 2, "layers": 1, "context": 32, **params}.items():
        session.set_param("model", key, value)
    session.set_param("train", "epochs", 1)
    session.set_param("hardware", "threads", 1)


def test_heads_not_dividing_d_model_is_refused_in_one_sentence(window) -> None:
    session = window.session
    form = window.settings.forms["model"]
    form.combo.setCurrentIndex(form.combo.findText("gpt_lm"))  # as a person picks it
    assert session.config.model.name == "gpt_lm" and len(form._param_rows) == 6  # one row per registry parameter
    _gpt(session, d_model=30, heads=4)
    assert commands.train(window.shell) is None
    title, text = window.status.last_error
    assert "heads (4) must divide d_model (30)" in text and not session.store.list()


@pytest.mark.slow  # a real run in the background, then a generation job
def test_character_gpt_trains_and_generates_with_top_k(qtbot, window) -> None:
    session = window.session
    _gpt(session)
    ended = []
    session.run_ended.connect(lambda run_id, status, message: ended.append((run_id, status)))
    window.train_action.trigger()
    qtbot.waitUntil(lambda: bool(ended), timeout=120_000)
    run_id, status = ended[0]
    assert status == "finished", window.status.last_error

    box = window.generate_box
    session.set_selection([run_id])
    qtbot.waitUntil(box.isVisible, timeout=5_000)
    box.seed.setText("The ")
    box.words.setValue(30)
    box.temperature.setValue(0.8)
    box.top_k.setValue(3)
    box.button.click()
    qtbot.waitUntil(lambda: not box.busy, timeout=60_000)
    result = box.result
    assert result is not None, window.status.last_error
    assert result["top_k"] == 3 and result["tokenizer"] == "char" and len(result["words"]) == 30
    assert result["text"] == "The " + "".join(result["words"])
    assert "top-3" in box.output.text()
