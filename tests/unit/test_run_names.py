"""One name per run (core/runs/names.py), issues 22 and 33.4: given when the run is made, from what differs from
the defaults, kept in the store; the same settings twice are numbered; short of room the model and the number stay."""

from __future__ import annotations

import pytest

from studio.core.config import RunConfig
from studio.core.runs.compare import compare_runs
from studio.core.runs.names import (
    SEP,
    base_name,
    fit,
    legacy_name,
    number_duplicates,
    numbered,
    run_names,
    shown_names,
)
from studio.core.runs.store import RunStore, flatten


def params_of(*overrides: str) -> dict:
    return flatten(RunConfig().with_overrides(list(overrides)).to_dict())


@pytest.mark.parametrize(("overrides", "want"), [
    ((), "mlp · fashion_mnist_small"),
    (("train.epochs=3",), "mlp · fashion_mnist_small · 3 epochs"),
    (("train.epochs=1", "train.batch_size=16"), "mlp · fashion_mnist_small · 1 epoch · batch 16"),
    (("optimizer.name=sgd", "optimizer.lr=0.01", "train.batch_size=256"),
     "mlp · fashion_mnist_small · sgd lr=0.01 · batch 256"),
    (("optimizer.lr=0.01",), "mlp · fashion_mnist_small · adam lr=0.01"),
    (("model.name=gpt_lm", "data.name=fortunes", "data.tokenizer=char"), "gpt_lm · fortunes tokenizer=char"),
    (("model.widths=16", "data.name=moons", "data.n_samples=300"), "mlp widths=[16] · moons n_samples=300"),
    # what a run records is no part of its name
    (("train.histogram_every=4", "train.checkpoint_every=1", "train.attention_every=0"),
     "mlp · fashion_mnist_small"),
])
def test_a_name_says_the_model_the_data_and_what_differs_from_the_defaults(overrides, want):
    name = base_name(params_of(*overrides))
    assert name == want
    assert "—" not in name and "=—" not in name  # no placeholder for a setting a run lacks


@pytest.mark.parametrize(("params", "want"), [
    ({"model.name": "python", "model.path": "/home/u/nets/my_net.py", "model.class": "TinyNet",
      "model.args.width": 8, "data.name": "python", "data.path": "/home/u/blobs.py", "data.class": "",
      "data.workers": 0}, "TinyNet width=8 · blobs workers=0"),
    ({"model.name": "timm", "model.arch": "convnext_atto", "model.pretrained": True, "data.name": "cifar10"},
     "timm:convnext_atto pretrained=true · cifar10"),
    ({"model.name": "hf", "model.path": "/home/u/models/tiny-bert/", "data.name": "hf_disk",
      "data.path": "/data/imdb_small"}, "hf:tiny-bert · imdb_small"),
    ({"model.name": "hf", "model.path": "prajjwal1/bert-tiny", "data.name": "fortune_sources"},
     "hf:bert-tiny · fortune_sources"),
    ({"model.name": "python", "model.path": "", "model.class": "", "data.name": "moons"}, "python · moons"),
])
def test_a_persons_own_model_or_data_is_named_by_their_choice_not_the_entry(params, want):
    """Issue 33: not "python path=/home/u/nets/my_net.py class=TinyNet · python path=…" (or, before the rule,
    "python · adam · python"): the class, the architecture, the folder."""
    assert base_name({"optimizer.name": "adam", **params}) == want


def test_each_setting_is_its_own_part_with_a_separator():
    name = base_name(params_of("train.epochs=7", "train.batch_size=64", "train.seed=3"))
    assert name.split(SEP)[2:] == ["7 epochs", "batch 64", "seed 3"]


def test_a_setting_an_old_run_lacks_is_left_out_not_shown_as_a_dash():
    p = params_of("train.epochs=2")
    del p["train.val_fraction"]
    assert base_name(p) == "mlp · fashion_mnist_small · 2 epochs"


def test_names_are_given_once_and_never_change_when_runs_are_added(tmp_path):
    store = RunStore(tmp_path)
    first = store.create_run(RunConfig().with_overrides(["train.epochs=5"]))
    before = shown_names(store)[first.id]
    # other runs of other kinds and settings arrive: the first run's name stays what it was
    store.create_run(RunConfig().with_overrides(["optimizer.lr=0.01", "train.batch_size=16"]))
    store.create_run(RunConfig().with_overrides(["model.name=gpt_lm", "data.name=fortunes", "data.tokenizer=char"]))
    assert shown_names(store)[first.id] == before == first.name == "mlp · fashion_mnist_small"
    assert store.get(first.id).name == before  # kept in the store, not worked out again


def test_the_same_settings_twice_are_numbered_in_the_order_they_were_made(tmp_path):
    store = RunStore(tmp_path)
    config = RunConfig().with_overrides(["train.epochs=1"])
    first, second, third = (store.create_run(config) for _ in range(3))
    names = shown_names(store)
    assert names[first.id] == "mlp · fashion_mnist_small · 1 epoch"
    assert (names[second.id], names[third.id]) == (f"{names[first.id]} #2", f"{names[first.id]} #3")
    store.delete(second.id)  # a number is never handed to a newer run while an older one holds a higher one
    fourth = store.create_run(config)
    assert shown_names(store)[fourth.id] == f"{names[first.id]} #4"
    assert shown_names(store)[third.id] == names[third.id]
    table = compare_runs(store, [first.id, third.id])
    assert table["differing"] == [] and [r["name"] for r in table["runs"]] == [names[first.id], names[third.id]]


def test_a_persons_name_is_kept_and_old_automatic_names_follow_the_rule(tmp_path):
    store = RunStore(tmp_path)
    mine = store.create_run(RunConfig(), name="baseline")
    old = [store.create_run(RunConfig().with_overrides(["train.epochs=2"])) for _ in range(2)]
    for run in old:  # runs from before the rule carry "model · optimizer · data"
        store.rename(run.id, legacy_name(store.params(run.id)))
    names = shown_names(store)
    assert names[mine.id] == "baseline"
    assert names[old[0].id] == "mlp · fashion_mnist_small · 2 epochs"
    assert names[old[1].id] == "mlp · fashion_mnist_small · 2 epochs #2"


def test_numbers_never_collide():
    assert number_duplicates({"a": "sgd", "b": "adam"}) == {"a": "sgd", "b": "adam"}
    got = number_duplicates({"r1": "x", "r2": "x", "r3": "x #2"})
    assert got["r1"] == "x" and got["r3"] == "x #2" and got["r2"] == "x #3"
    assert numbered("x", ["x", "x #2", "y #7"]) == "x #3" and numbered("x", ["y"]) == "x"
    assert run_names({"a": params_of(), "b": params_of()}, {"b": "", "a": ""}) == {
        "a": "mlp · fashion_mnist_small", "b": "mlp · fashion_mnist_small #2"}  # a is older (listed last)


NAME = "mlp widths=[256,128] · fashion_mnist_small · sgd lr=0.05 · batch 256 · 3 epochs #2"


@pytest.mark.parametrize(("room", "want"), [
    (200, NAME),
    (70, "mlp widths=[256,128] · … · sgd lr=0.05 · batch 256 · 3 epochs #2"),  # the data part goes first
    (50, "mlp widths=[256,128] · … · sgd lr=0.05 · … #2"),  # then the last settings, one by one
    (30, "mlp widths=[256,128] · … #2"),
    (20, "mlp … #2"),  # then the model's own settings: its name stays
])
def test_short_of_room_a_name_keeps_the_model_and_the_number(room, want):
    assert fit(NAME, room) == want
    assert len(fit(NAME, room)) <= room


@pytest.mark.parametrize("room", [5, 8, 12])
def test_a_name_cut_in_its_characters_keeps_its_number(room):
    text = fit(NAME, room)
    assert text.endswith("#2") and "…" in text and len(text) <= max(room, len("…#2"))
    assert fit("a person's long name without parts", 12).count("…") == 1


def test_fit_measures_with_the_callers_ruler():
    def wide(text: str) -> float:  # a font where every character is 7 px
        return 7.0 * len(text)

    assert fit(NAME, 7 * 30, wide) == fit(NAME, 30)
