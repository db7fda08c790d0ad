"""Runs that differ only in the seed form a group, named by the naming rule without the seed; what a run only
records does not split a group; seeds as people type them."""

from __future__ import annotations

import pytest

from studio.core.config import RunConfig
from studio.core.errors import ConfigError
from studio.core.runs.seed_groups import group_of, parse_seeds, seed_groups, summary_spreads
from studio.core.runs.store import flatten


def params(*overrides: str) -> dict:
    return flatten(RunConfig().with_overrides(list(overrides)).to_dict())


def test_runs_differing_only_in_the_seed_form_one_group_named_without_the_seed() -> None:
    runs = {"a": params("train.seed=0", "optimizer.lr=0.01"), "b": params("train.seed=1", "optimizer.lr=0.01"),
            "c": params("train.seed=2", "optimizer.lr=0.01", "train.metric_interval=5"),  # only records more often
            "d": params("train.seed=0", "optimizer.lr=0.1"), "e": params("train.seed=1", "optimizer.lr=0.1"),
            "lone": params("optimizer.lr=0.5")}
    groups = seed_groups(runs)
    assert [g.run_ids for g in groups] == [("a", "b", "c"), ("d", "e")]
    assert groups[0].seeds == (0, 1, 2)
    assert groups[0].name == "mlp · fashion_mnist_small · adam lr=0.01 × 3 seeds"
    assert "seed" not in groups[1].name.split(" × ")[0]
    assert group_of(groups)["e"] is groups[1] and "lone" not in group_of(groups)
    assert groups[0].id != groups[1].id and groups[0].id == seed_groups({"x": runs["b"], "y": runs["a"]})[0].id


def test_the_same_settings_twice_are_repeats_too() -> None:
    groups = seed_groups({"a": params(), "b": params()})
    assert len(groups) == 1 and groups[0].name.endswith("× 2 runs")  # the same seed: runs, not seeds


def test_a_group_of_one_is_no_group_unless_asked() -> None:
    assert seed_groups({"a": params()}) == []
    assert seed_groups({"a": params()}, min_size=1)[0].run_ids == ("a",)


def test_summary_spreads_over_a_group() -> None:
    found = summary_spreads([{"test_acc": 0.8}, {"test_acc": 0.9}, {"test_acc": None}], ["test_acc", "val_acc"])
    assert list(found) == ["test_acc"] and found["test_acc"].n == 2


def test_seeds_as_people_type_them() -> None:
    assert parse_seeds("0,1,2,3,4") == [0, 1, 2, 3, 4] == parse_seeds("0-4") == parse_seeds("0-2, 3,4,4")
    for bad, words in (("", "at least one seed"), ("a,b", "whole numbers"), ("4-0", "lower seed first"),
                       ("-3", "between 0"), ("0-5000", "1000 at most")):
        with pytest.raises(ConfigError, match=words):
            parse_seeds(bad)
