"""``studio train --preset lamb_large_batch``: You et al. 2020's recipe as the paper check runs it; --set wins."""

import json

from studio.cli import main
from studio.core.checks.paper import you_lamb_large_batch as check
from studio.core.config.paper_presets import PAPER_PRESETS


def test_the_preset_is_the_checks_recipe():
    preset = PAPER_PRESETS["lamb_large_batch"]
    assert preset["train.batch_size"] == check.LARGE and preset["train.epochs"] == check.EPOCHS
    assert preset["optimizer.lr"] in check.LAMB_GRID
    steps = preset["train.epochs"] * ((10_000 - check.VALIDATION) // check.LARGE)
    assert preset["schedule.warmup_steps"] == round(check.WARMUP * steps)


def test_the_cli_takes_the_preset_and_set_still_wins(capsys):
    args = ["train", "--explain", "--json", "--set", "model.widths=128,128"]
    assert main([*args, "--preset", "lamb_large_batch", "--set", "optimizer.lr=0.05"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["optimizer"]["name"] == "lamb" and out["optimizer"]["lr"] == 0.05  # --set wins
    assert out["schedule"]["name"] == "poly" and out["schedule"]["warmup_steps"] == 4
    assert out["train"]["batch_size"] == 2048
    assert main([*args, "--preset", "lamb_large_batch", "--set", "optimizer.name=sgd"]) == 0
    named = json.loads(capsys.readouterr().out)
    assert named["optimizer"]["name"] == "sgd" and named["optimizer"]["lr"] != 0.1  # a named section keeps its own
