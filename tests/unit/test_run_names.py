"""Run names a person can tell apart (core/runs/names.py), issue 22: the same config trained twice gets two names."""

from __future__ import annotations

from studio.core.config import RunConfig
from studio.core.runs.compare import compare_runs
from studio.core.runs.names import number_duplicates, run_names
from studio.core.runs.store import RunStore


def test_identical_runs_get_distinguishable_names(tmp_path):
    store = RunStore(tmp_path)
    config = RunConfig().with_overrides(["train.epochs=1"])
    first, second, third = (store.create_run(config) for _ in range(3))
    names = run_names(store.all_params(), {r.id: r.name for r in store.list()})
    assert len(set(names.values())) == 3
    assert names[first.id] == "mlp · adam · fashion_mnist_small"  # the first made keeps the plain name
    assert (names[second.id], names[third.id]) == (f"{names[first.id]} #2", f"{names[first.id]} #3")
    table = compare_runs(store, [first.id, second.id])
    assert table["differing"] == [] and table["runs"][0]["name"] != table["runs"][1]["name"]


def test_runs_that_differ_keep_their_names_and_numbers_never_collide():
    assert number_duplicates({"a": "sgd", "b": "adam"}) == {"a": "sgd", "b": "adam"}
    got = number_duplicates({"r1": "x", "r2": "x", "r3": "x #2"})
    assert got["r1"] == "x" and got["r3"] == "x #2" and got["r2"] == "x #3"
    assert len(set(got.values())) == 3
