"""A model's suggested train settings (core/config/suggested.py; issue 33.7): the next-word models suggest more,
smaller steps than the shared defaults; the window sets them when the model is picked and undoes them when another
is; ``studio train --preset suggested`` takes them, ``--set`` still wins, ``--explain`` says them."""

from __future__ import annotations

import json

import pytest

from studio.cli import main
from studio.core.config import RunConfig
from studio.core.config.suggested import is_applied, pick_model, suggestion, value_of, with_suggested
from studio.core.models import MODELS

NEXT_WORD = ("lstm_lm", "gru_lm", "gpt_lm")


def on_fortunes(model: str) -> RunConfig:
    return RunConfig().with_overrides([f"model.name={model}", "data.name=fortunes"])


@pytest.mark.parametrize("model", NEXT_WORD)
def test_each_next_word_model_suggests_settings_it_can_take(model):
    found = suggestion(model)
    assert found is not None and found.why
    config = with_suggested(on_fortunes(model))
    assert all(value_of(config, key) == value for key, value in found.settings.items())
    assert is_applied(config) and not is_applied(on_fortunes(model))
    assert config.train.batch_size < RunConfig().train.batch_size  # more steps than the shared defaults give


def test_a_classifier_suggests_nothing_and_keeps_its_config():
    config = RunConfig()
    assert suggestion(config.model.name) is None and is_applied(config)
    assert with_suggested(config).to_dict() == config.to_dict()


def test_what_a_person_set_is_kept_and_a_named_optimizer_keeps_its_own_rate():
    config = on_fortunes("lstm_lm").with_overrides(["train.epochs=2", "optimizer.name=sgd"])
    out = with_suggested(config, keep=["train.epochs", "optimizer.name"])
    assert out.train.epochs == 2 and out.optimizer.name == "sgd"
    assert out.optimizer.params["lr"] == config.optimizer.params["lr"]  # no adam rate for sgd
    assert out.train.batch_size == suggestion("lstm_lm").settings["train.batch_size"]


def test_picking_a_model_sets_its_suggestion_and_leaving_it_undoes_what_is_left_of_it():
    config, note = pick_model(RunConfig().with_overrides(["data.name=fortunes"]), "gpt_lm")
    assert config.model.name == "gpt_lm" and is_applied(config)
    assert "gpt_lm" in note and "batch size 8" in note and suggestion("gpt_lm").why in note
    config.train.epochs = 3  # a person's edit: kept when leaving
    back, note = pick_model(config, "mlp")
    shared = RunConfig()
    assert back.model.name == "mlp" and back.train.epochs == 3
    assert back.train.batch_size == shared.train.batch_size and back.schedule.name == shared.schedule.name
    assert back.optimizer.params["lr"] == shared.optimizer.params["lr"]
    assert note.startswith("Back to the shared defaults") and "batch size 128" in note and "epochs" not in note
    assert pick_model(back, "cnn")[1] == ""  # nothing else changed: nothing to say


def test_every_suggestion_names_real_settings():
    for entry in MODELS:
        if entry.suggested is not None:
            config = with_suggested(RunConfig().with_overrides([f"model.name={entry.name}"]))
            for key, value in entry.suggested.settings.items():
                assert value_of(config, key) == value, (entry.name, key)


def test_the_cli_takes_the_suggestion_on_request_only(capsys):
    args = ["train", "--explain", "--json", "--set", "model.name=lstm_lm", "--set", "data.name=fortunes"]
    assert main(args) == 0
    plain = json.loads(capsys.readouterr().out)
    assert plain["suggested"]["applied"] is False and plain["train"]["batch_size"] == 128  # documented defaults
    assert main([*args, "--preset", "suggested", "--set", "train.epochs=2"]) == 0
    asked = json.loads(capsys.readouterr().out)
    assert asked["train"]["batch_size"] == 32 and asked["train"]["epochs"] == 2  # --set wins
    assert asked["suggested"]["settings"]["train.batch_size"] == 32


def test_resume_refuses_a_preset(capsys):
    assert main(["train", "--resume", "some-run", "--preset", "suggested"]) == 2  # a user-fixable error
    assert "drop --preset" in capsys.readouterr().err


def test_studio_list_models_says_each_suggestion():
    listed = {e["name"]: e for e in MODELS.describe()}
    assert listed["lstm_lm"]["suggested"] == suggestion("lstm_lm").settings
    assert "suggested" not in listed["mlp"]
