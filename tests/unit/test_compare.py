"""What differs between runs, the two-run diff and the compare table (core/runs/compare.py)."""

import pytest

from studio.core.config import RunConfig
from studio.core.runs.compare import compare_runs, config_diff, differing_keys, final_metrics, format_value
from studio.core.runs.store import RunStore


def test_differing_keys_orders_sections_and_counts_missing_as_different():
    a = {"optimizer.name": "sgd", "optimizer.lr": 0.1, "optimizer.momentum": 0.9, "train.epochs": 5,
         "hardware.threads": 1, "model.widths": [16]}
    b = {"optimizer.name": "adam", "optimizer.lr": 0.1, "train.epochs": 3, "hardware.threads": 2,
         "model.widths": [16]}
    assert differing_keys([a, b]) == ["optimizer.name", "optimizer.momentum", "train.epochs"]
    assert differing_keys([a]) == [] and differing_keys([a, dict(a)]) == []
    assert differing_keys([a, dict(a, **{"model.widths": [32]})]) == ["model.widths"]  # lists compare by value


def test_config_diff_and_formatting():
    rows = config_diff({"train.epochs": 5, "optimizer.lr": 0.1}, {"train.epochs": 5, "data.name": "moons"})
    assert [(r.key, r.same) for r in rows] == [("data.name", False), ("optimizer.lr", False), ("train.epochs", True)]
    assert [r.key for r in config_diff({"a.x": 1}, {"a.x": 2, "a.y": 3}, only_different=True)] == ["a.x", "a.y"]
    assert [format_value(v) for v in (None, True, 0.0010000, [256, 256], float("nan"), "sgd")] == \
        ["—", "true", "0.001", "[256, 256]", "—", "sgd"]


def test_format_metric():
    from studio.core.runs.compare import format_metric

    shown = [format_metric(v) for v in (0.853333, 1.0, 18, 12345.678, None)]
    assert shown == ["0.8533", "1.0000", "18", "12345.7", "—"]


def test_final_metrics_keeps_numbers_known_first():
    assert list(final_metrics({"seconds": 2.0, "val_acc": 0.5, "test_acc": 0.7, "zeta": 1, "device": "cpu",
                               "world_size": 1, "flag": True})) == ["test_acc", "val_acc", "seconds", "zeta"]


def test_compare_runs_from_the_store(tmp_path):
    store = RunStore(tmp_path)
    base = RunConfig().with_overrides(["train.epochs=1"])
    a = store.create_run(base.with_overrides(["optimizer.lr=0.01"]))
    b = store.create_run(base.with_overrides(["optimizer.name=sgd", "optimizer.lr=0.1"]), name="my sgd")
    store.set_status(a.id, "finished", summary={"test_acc": 0.8, "train_loss": 0.5})
    store.set_status(b.id, "failed", "diverged", summary={"train_loss": 9.0})
    table = compare_runs(store, [a.id, b.id])
    assert table["differing"][0] == "optimizer.name"
    assert {"optimizer.lr", "optimizer.beta1", "optimizer.momentum"} <= set(table["differing"])  # adam's vs sgd's
    assert table["metric_names"] == ["test_acc", "train_loss"]
    first, second = table["runs"]
    assert (first["name"], second["name"]) == ("mlp · fashion_mnist_small · adam lr=0.01 · 1 epoch", "my sgd")
    assert first["settings"]["optimizer.lr"] == 0.01 and second["settings"]["optimizer.name"] == "sgd"
    assert first["metrics"] == {"test_acc": 0.8, "train_loss": 0.5}
    assert second["metrics"] == {"test_acc": None, "train_loss": 9.0} and second["status"] == "failed"


def test_compare_reports_the_seed_groups_among_the_runs(tmp_path):
    store = RunStore(tmp_path)
    base = RunConfig().with_overrides(["train.epochs=1", "optimizer.lr=0.01"])
    seeds = [store.create_run(base.with_overrides([f"train.seed={s}"])) for s in (0, 1, 2)]
    other = store.create_run(base.with_overrides(["optimizer.lr=0.1"]))
    for run, acc in zip([*seeds, other], (0.80, 0.82, 0.84, 0.5), strict=True):
        store.set_status(run.id, "finished", summary={"test_acc": acc})
    table = compare_runs(store, [r.id for r in (*seeds, other)])
    assert table["differing"] == ["optimizer.lr", "train.seed"]
    (group,) = table["groups"]  # the lone lr=0.1 run is no group
    assert group["run_ids"] == [r.id for r in seeds] and group["seeds"] == [0, 1, 2] and group["n"] == 3
    assert group["name"] == "mlp · fashion_mnist_small · adam lr=0.01 · 1 epoch × 3 seeds"
    acc = group["metrics"]["test_acc"]
    assert acc["mean"] == pytest.approx(0.82) and acc["std"] == pytest.approx(0.02) and acc["n"] == 3


def test_parallel_axes_numeric_log_and_categorical():
    from studio.core.runs.compare import make_axis, parallel_axes

    lin = make_axis("train.epochs", [1, 3, 2])
    assert lin.positions == [0.0, 1.0, 0.5] and not lin.log and lin.ticks[0] == (0.0, "1")
    log = make_axis("optimizer.lr", [0.001, 0.1, 0.01])
    assert log.log and log.positions == pytest.approx([0.0, 1.0, 0.5])
    cat = make_axis("optimizer.name", ["sgd", "adam", None])
    assert cat.positions == [0.5, 0.0, 1.0] and [t[1] for t in cat.ticks] == ["adam", "sgd", "—"]
    assert make_axis("x", [5, 5]).positions == [0.5, 0.5]
    table = {"differing": ["optimizer.lr"], "runs": [
        {"settings": {"optimizer.lr": 0.1}, "metrics": {"test_acc": 0.8}},
        {"settings": {"optimizer.lr": 0.2}, "metrics": {"test_acc": None}}]}
    axes = parallel_axes(table, "test_acc")
    assert [a.name for a in axes] == ["optimizer.lr", "test_acc"] and axes[1].positions == [0.5, None]
