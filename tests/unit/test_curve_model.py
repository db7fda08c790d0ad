"""The curves' model (gui/plots/curve_model.py) without Qt: x modes, smoothing, selections, the key, NaN handling
and the decimation requests it makes; ``prepare`` (curve_data.py) turns a request into the arrays drawn."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from studio.gui.plots.curve_data import Prepared, Series, prepare
from studio.gui.plots.curve_key import KEY_NAMES, KEY_TIP, key_html
from studio.gui.plots.curve_model import (
    INLINE_POINTS,
    MAX_COLUMNS,
    MIN_COLUMNS,
    PLOTS,
    CurveModel,
    PlotView,
    bounds,
    covers,
    plot_spec,
    spread,
)
from studio.gui.plots.palette import OKABE_ITO

WHOLE = PlotView(None, 800)  # a plot 800 px wide following its data


def views(model: CurveModel, view: PlotView = WHOLE) -> dict[str, PlotView]:
    return dict.fromkeys(model.plots, view)


def drawn(model: CurveModel, only=None) -> dict:
    """What the model's current request draws: (run, metric) → Drawn."""
    return prepare(model.request(1, only, views(model))).drawn


def test_the_model_imports_without_qt():
    code = ("import sys; import studio.gui.plots.curve_model, studio.gui.plots.curve_key;"
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph', 'shiboken6'));"
            "assert not bad, bad")
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    subprocess.run([sys.executable, "-c", code], check=True, cwd=root, env=env)


def epoch_run() -> dict:
    """Logged every 50 steps from step 50, two epochs of 100 steps finished, 5 s a step from t = 1000 s."""
    steps = np.array([50, 100, 150, 200, 250])
    return {"train/loss": (steps, [4.0, 3.0, 2.0, 1.5, 1.0], 1000.0 + 5 * steps),
            "epoch": ([100, 200], [1, 2], [1500.0, 2000.0])}


@pytest.mark.parametrize(("mode", "want"), [
    ("step", [50, 100, 150, 200, 250]),
    ("samples", [3200, 6400, 9600, 12800, 16000]),  # × the batch size, 64
    ("epoch", [0.5, 1.0, 1.5, 2.0, 2.5]),  # the epoch in progress goes on at 100 steps an epoch
    ("wall", [0.0, 250.0, 500.0, 750.0, 1000.0]),  # seconds since the run's first metric (step 50 at 1250 s)
])
def test_x_modes(mode, want):
    model = CurveModel()
    model.show({"r": epoch_run()}, batch_sizes={"r": 64})
    model.set_x_mode(mode)
    d = drawn(model)[("r", "train/loss")]
    assert d.x.tolist() == want and d.y.tolist() == [4.0, 3.0, 2.0, 1.5, 1.0]
    assert model.x_values("r", model.series["r"]["train/loss"]).tolist() == want


def test_an_unknown_x_mode_is_refused():
    model = CurveModel()
    with pytest.raises(ValueError):
        model.set_x_mode("tokens")
    assert model.x_mode == "step"


def test_log_x_drops_the_points_it_cannot_place():
    model = CurveModel()
    model.show({"r": {"lr": ([0, 1, 10, 100], [0.1, 0.2, 0.3, 0.4])}})
    model.set_log_x(True)
    d = drawn(model)[("r", "lr")]
    assert d.x.tolist() == [1, 10, 100] and d.y.tolist() == [0.2, 0.3, 0.4]


def test_smoothing_is_tensorboards_debiased_ema_on_the_train_curves_only():
    model = CurveModel()
    model.show({"r": {"train/loss": ([1, 2, 3], [1.0, 3.0, 2.0]), "val/loss": ([1, 2, 3], [1.0, 3.0, 2.0])}})
    model.set_smoothing(0.5)
    got = drawn(model)
    # by hand, weight 0.5: (0.5·1)/0.5 = 1; (0.25 + 1.5)/0.75 = 7/3; (0.875 + 1)/0.875 = 15/7
    assert got[("r", "train/loss")].y == pytest.approx([1.0, 7 / 3, 15 / 7], abs=1e-12)
    assert got[("r", "train/loss")].raw_y.tolist() == [1.0, 3.0, 2.0]  # drawn faint behind
    assert got[("r", "val/loss")].y.tolist() == [1.0, 3.0, 2.0] and got[("r", "val/loss")].raw_y is None
    model.set_smoothing(0)
    assert drawn(model)[("r", "train/loss")].y.tolist() == [1.0, 3.0, 2.0]


def test_a_growing_curve_continues_its_kept_smoothing():
    model = CurveModel()
    model.show({"r": {"train/loss": ([1, 2], [1.0, 3.0])}})
    model.set_smoothing(0.5)
    d = drawn(model)[("r", "train/loss")]
    assert model.keep("r", "train/loss", d) and model.series["r"]["train/loss"].smoothed is d.smoothed
    model.add_rows("r", [(3, "train/loss", 2.0, 0.0)])
    assert drawn(model)[("r", "train/loss")].y == pytest.approx([1.0, 7 / 3, 15 / 7], abs=1e-12)
    assert not model.keep("gone", "train/loss", d)  # a run no longer shown is not drawn


def test_a_new_selection_keeps_the_runs_read_already_and_reads_the_rest():
    model = CurveModel()
    model.select(["a", "b"], {"a": "run a"})
    assert model.unread == ["a", "b"] and model.labels == {"a": "run a", "b": "b"}
    read_a = {"train/loss": Series([1, 2], [1.0, 0.5])}
    model.install("a", read_a, 32)
    model.settle(Prepared(1, loaded=["a"]))
    assert model.unread == ["b"] and model.batch_sizes["a"] == 32
    model.select(["c", "a", "b"])
    assert model.order == ["c", "a", "b"] and model.unread == ["c", "b"]  # b was never read: read again
    assert model.series["a"]["train/loss"] is read_a["train/loss"] and read_a["train/loss"].dirty
    assert model.colours() == {"c": OKABE_ITO[0], "a": OKABE_ITO[1], "b": OKABE_ITO[2]}  # by place in the selection
    assert not model.inline()  # runs to read: the loader's thread


def test_live_rows_read_meanwhile_follow_what_the_store_had():
    model = CurveModel()
    model.select(["r"])
    model.add_rows("r", [(2, "train/loss", 0.5, 2.0), (3, "train/loss", 0.4, 3.0)])
    model.install("r", {"train/loss": Series([1, 2], [1.0, 0.6], [1.0, 2.0])}, 8)
    assert model.series["r"]["train/loss"].values.tolist() == [1.0, 0.6, 0.4]  # the store's step 2, then step 3
    model.add_rows("r", [(3, "train/loss", 9.0, 3.0), (4, "train/loss", 0.3, 4.0)])  # step 3 again: skipped
    assert model.full_count("r", "train/loss") == 4 and model.series["r"]["train/loss"].values[-1] == 0.3
    model.add_rows("unknown", [(1, "train/loss", 1.0, 0.0)])
    assert "unknown" not in model.series


def test_an_epoch_end_moves_every_curve_of_its_run():
    model = CurveModel()
    model.show({"a": {"train/loss": ([1], [1.0]), "val/loss": ([1], [1.0])}, "b": {"train/loss": ([1], [1.0])}})
    model.settle(prepare(model.request(1, None, views(model))))
    assert model.dirty() == set()
    model.add_rows("a", [(100, "epoch", 1.0, 0.0)])
    assert model.dirty() == {("a", "train/loss"), ("a", "val/loss"), ("a", "epoch")}


def test_optional_plots_come_with_their_metric_and_go_with_the_selection():
    model = CurveModel()
    model.show({"text": {"train/perplexity": ([1], [100.0])}})
    assert model.plots == [*PLOTS, "perplexity"] and "perplexity" in model.unfitted
    model.add_rows("text", [(2, "sharpness/top_eig", 12.0, 0.0)])
    assert model.plots == [*PLOTS, "perplexity", "sharpness"]
    model.show({"image": {"train/loss": ([1], [1.0])}})
    assert model.plots == list(PLOTS)


def test_the_key_names_runs_counts_the_rest_and_escapes_labels():
    model = CurveModel()
    runs = [f"r{i}" for i in range(KEY_NAMES + 3)]
    model.show({r: {"train/loss": ([20, 40, 60], [1.0, 0.9, 0.8])} for r in runs}, {"r0": "<b>bold</b>"})
    model.set_labels({"r1": "renamed", "nobody": "ignored"})
    key = model.key()
    assert [r for r, _ in key.named] == runs[:KEY_NAMES] and key.more == 3 and len(key.everyone) == len(runs)
    assert key.named[1] == ("r1", "renamed") and "nobody" not in model.labels
    text, tip = key_html(key, model.colours(), 9)
    assert "&lt;b&gt;bold&lt;/b&gt;" in text and "<b>bold" not in text
    assert "… and 3 more" in text and all(f"■</span> r{i}" in tip for i in range(2, len(runs)))
    assert "a point every 20 steps (train.metric_interval)" in text


def test_the_key_says_how_often_each_run_logged():
    model = CurveModel()
    model.show({"a": {"train/loss": ([20, 40, 60, 70], [1.0, 0.8, 0.7, 0.6])}})  # cut short at the end
    assert model.key().lines.startswith("solid: train, a point every 20 steps")
    assert not model.key_outdated()
    model.add_run("b", "b")
    model.add_rows("b", [(1, "train/loss", 1.0, 0.0), (2, "train/loss", 0.9, 0.0)])
    assert model.key_outdated() and model.logged_every() == [1, 20]
    assert "a point every 1 or 20 steps" in model.key().lines and not model.key_outdated()
    text, tip = key_html(CurveModel().key(), {}, 9)
    assert text == "" and tip == KEY_TIP  # no run: no key


def test_the_key_does_not_name_train_metric_interval_for_runs_a_script_logged():
    """Issue 33: a run tracked with studio.track or imported from TensorBoard was said to log "every 1 step
    (train.metric_interval)": its script chose the spacing, not a Studio setting."""
    model = CurveModel()
    model.select(["tracked", "studio"], {"tracked": "my script", "studio": "mlp · moons"})
    model.install("tracked", {"train/loss": Series([1, 2, 3], [1.0, 0.9, 0.8])}, 0, scripted=True)
    assert model.key().lines == ("solid: train, a point every 1 step (as your script logged them) · dashed, dots: "
                                 "validation")
    model.install("studio", {"train/loss": Series([20, 40, 60], [1.0, 0.9, 0.8])}, 128)
    assert model.key_outdated()
    assert model.key().lines == ("solid: train, a point every 20 steps (train.metric_interval); every 1 step (as your "
                                 "script logged them) · dashed, dots: validation (per epoch)")
    model.select(["studio"])  # the tracked run no longer shown
    model.install("studio", {"train/loss": Series([20, 40, 60], [1.0, 0.9, 0.8])}, 128)
    assert "script" not in model.key().lines and "(train.metric_interval)" in model.key().lines


def test_nan_points_are_dropped_where_they_have_no_place():
    model = CurveModel()
    model.show({"r": {"train/loss": ([1, 2, 3, 4], [1.0, np.nan, 0.5, 0.4])}})
    d = drawn(model)[("r", "train/loss")]
    assert d.x.tolist() == [1, 2, 3, 4] and np.isnan(d.y[1]) and d.y[[0, 2, 3]].tolist() == [1.0, 0.5, 0.4]
    model.set_x_mode("wall")  # logged without wall times: no x for any point
    assert len(drawn(model)[("r", "train/loss")].x) == 0
    model.set_x_mode("epoch")  # no epoch finished yet: no epoch axis either
    assert len(drawn(model)[("r", "train/loss")].x) == 0


def test_bounds_skip_non_finite_points_and_non_positive_ones_on_log_axes():
    x, y = np.array([0.0, 1.0, 10.0, np.nan]), np.array([5.0, np.nan, 100.0, 1.0])
    assert bounds([(x, y)], log_x=False, log_y=False) == ((0.0, 10.0), (5.0, 100.0))
    assert bounds([(x, y)], log_x=True, log_y=True) == ((1.0, 1.0), (2.0, 2.0))  # only (10, 100) is left
    assert bounds([(np.array([np.nan]), np.array([1.0]))], False, False) is None
    assert spread(3.0, 3.0) == pytest.approx((2.85, 3.15)) and spread(0.0, 0.0) == (-0.5, 0.5)


def test_requests_decimate_zoomed_plots_for_their_view_at_twice_the_columns():
    model = CurveModel()
    n = 10_000
    model.show({"r": {"train/loss": (np.arange(1, n + 1), np.sin(np.arange(n) / 9.0))}})
    whole = model.request(1, None, views(model))
    assert whole.ranges["loss"] == (None, 800)  # not fitted yet: the whole curve, a column a pixel
    assert len(prepare(whole).drawn[("r", "train/loss")].x) <= 4 * 800 + 2 < n
    zoomed = PlotView((4000.0, 5000.0), 800)
    assert model.request(2, None, views(model, zoomed)).ranges["loss"] == (None, 800)  # still unfitted
    model.unfitted.clear()
    model.drawn()
    assert model.moved(views(model, zoomed)) == set(PLOTS)  # each plot left its whole-curve decimation
    job = model.request(3, model.series_in({"loss"}), views(model, zoomed))
    assert job.ranges["loss"] == ((3500.0, 5500.0), 1600) and job.only == {("r", "train/loss")}
    x = prepare(job).drawn[("r", "train/loss")].x
    assert np.all(np.diff(x[(x >= 4000) & (x <= 5000)]) == 1)  # every point of the view, at full resolution
    model.drawn()
    assert model.drawn_ranges["loss"] == (4000.0, 5000.0) and model.drawn_columns["loss"] == 800
    assert "loss" not in model.moved(views(model, PlotView((4200.0, 5200.0), 800)))  # a pan within the margin
    assert "loss" in model.moved(views(model, PlotView((4000.0, 4500.0), 800)))  # zoomed in 2×
    assert covers(None, None) and not covers((0.0, 1.0), None)


def test_columns_follow_the_plot_width_and_the_runs_sharing_it():
    model = CurveModel()
    model.show({"r": {"train/loss": ([1], [1.0])}})
    assert model.columns("loss", 640) == 640 and model.columns("loss", 5000) == MAX_COLUMNS
    assert model.columns("loss", 0) == 800  # not laid out yet
    model.show({f"r{i}": {"train/loss": ([1], [1.0])} for i in range(10)})
    assert model.columns("loss", 1000) == 20_000 // (4 * 2 * 10)  # train and validation of 10 runs: 20,000 points
    model.set_smoothing(0.6)  # a raw curve behind each train curve too
    assert model.columns("loss", 1000) == 20_000 // (4 * 3 * 10)
    model.show({f"r{i}": {"train/loss": ([1], [1.0])} for i in range(40)})
    assert model.columns("loss", 1000) == MIN_COLUMNS


def test_small_requests_are_prepared_inline_and_grown_series_stay_dirty():
    model = CurveModel()
    model.show({"r": {"train/loss": (np.arange(INLINE_POINTS), np.zeros(INLINE_POINTS))}})
    assert model.inline()
    model.add_rows("r", [(INLINE_POINTS, "train/loss", 0.0, 0.0)])
    assert not model.inline() and model.inline(set())
    result = prepare(model.request(1, None, views(model)))
    model.add_rows("r", [(INLINE_POINTS + 1, "train/loss", 0.0, 0.0)])  # came while it was being prepared
    assert [(r, n) for r, n, _d in model.settle(result)] == [("r", "train/loss")]
    assert model.dirty() == {("r", "train/loss")}


# --- issue 33.6: any logged metric on a plot, chosen by the user; the read-out at the pointer ---------------------
def grad_norm_run() -> dict:
    steps = [10, 20, 30, 40]
    return {"train/loss": (steps, [2.0, 1.5, 1.2, 1.0]), "val/loss": ([20, 40], [1.6, 1.1]),
            "train/grad_norm": (steps, [5.0, 4.0, 3.5, 3.0]), "epoch": ([20, 40], [1, 2])}


def test_the_chooser_lists_every_logged_metric_known_ones_first():
    model = CurveModel()
    model.show({"a": grad_norm_run(), "b": {"lr": ([10], [0.1]), "custom/zeta": ([10], [1.0])}})
    assert model.logged() == ["train/loss", "val/loss", "lr", "custom/zeta", "train/grad_norm"]  # no "epoch"
    assert [model.chosen(m) for m in model.logged()] == [True, True, True, False, False]


def test_a_chosen_custom_metric_gets_a_plot_of_its_own_and_is_drawn():
    model = CurveModel()
    model.show({"a": grad_norm_run()})
    assert "metric:train/grad_norm" not in model.plots and ("a", "train/grad_norm") not in drawn(model)
    assert model.set_chosen("train/grad_norm", True)
    assert model.plots == [*PLOTS, "metric:train/grad_norm"] and "metric:train/grad_norm" in model.unfitted
    assert plot_spec("metric:train/grad_norm")[:2] == ("train/grad_norm", "train/grad_norm")
    assert drawn(model)[("a", "train/grad_norm")].y.tolist() == [5.0, 4.0, 3.5, 3.0]
    assert model.choices == {"train/grad_norm": True}  # what the window remembers
    assert not model.set_chosen("train/grad_norm", True)  # no change, nothing to redraw


def test_unchosen_metrics_are_not_drawn_and_an_empty_plot_goes():
    model = CurveModel()
    model.show({"a": {**grad_norm_run(), "train/acc": ([10, 20], [0.5, 0.6])}})
    model.set_chosen("val/loss", False)
    assert "loss" in model.plots and ("a", "val/loss") not in drawn(model) and ("a", "train/loss") in drawn(model)
    assert [m[0] for m in model.plotted("loss")] == ["train/loss"]
    model.set_chosen("train/acc", False)
    model.set_chosen("val/acc", False)
    assert "acc" not in model.plots  # no chosen metric left in it


def test_remembered_choices_apply_to_runs_read_later():
    model = CurveModel()
    model.set_choices({"train/grad_norm": True, "lr": False})
    assert "lr" not in model.plots and model.plotted_metrics()["train/grad_norm"] == "metric:train/grad_norm"
    model.select(["a"])  # a run still to be read: its custom metric is drawn once it comes
    job = model.request(1, None, views(model))
    assert job.plot_of["train/grad_norm"] == "metric:train/grad_norm" and "lr" not in job.plot_of
    model.install("a", {name: Series(*cols) for name, cols in grad_norm_run().items()}, 32)
    assert "metric:train/grad_norm" in model.plots


def test_the_readout_gives_each_runs_point_nearest_the_pointer():
    model = CurveModel()
    model.show({"a": grad_norm_run(), "b": {"train/loss": ([5, 25, 45], [3.0, 2.0, 1.0])}}, {"a": "A", "b": "B"})
    got = [(r.run_id, r.label, r.metric, r.line, r.x, r.value, r.smoothed) for r in model.readout("loss", 23.0)]
    assert got == [("a", "A", "train/loss", "train", 20.0, 1.5, None), ("a", "A", "val/loss", "validation", 20.0, 1.6,
                   None), ("b", "B", "train/loss", "train", 25.0, 2.0, None)]
    assert model.readout("lr", 23.0) == []  # nothing logged there
    model.set_x_mode("epoch")  # in the x axis's units: step 40 is the end of epoch 2
    assert [(r.x, r.value) for r in model.readout("loss", 1.9)][:2] == [(2.0, 1.0), (2.0, 1.1)]


def test_the_readout_gives_the_smoothed_and_the_raw_value():
    from studio.core.maths.smoothing import ema

    model = CurveModel()
    model.show({"a": grad_norm_run()})
    model.set_smoothing(0.6)
    train, val = model.readout("loss", 30.0)
    assert (train.value, train.smoothed) == (1.2, pytest.approx(ema(np.array([2.0, 1.5, 1.2, 1.0]), 0.6)[2]))
    assert val.smoothed is None  # validation is not smoothed
    drawn(model)  # after a drawing the model keeps the smoothing: the read-out uses it
    assert model.readout("loss", 30.0)[0].smoothed == pytest.approx(train.smoothed)


def test_the_readout_reads_a_log_x_axis_in_its_units():
    model = CurveModel()
    model.show({"a": {"train/loss": ([1, 10, 100, 1000], [4.0, 3.0, 2.0, 1.0])}})
    model.set_log_x(True)
    assert [(r.x, r.value) for r in model.readout("loss", np.log10(80.0))] == [(100.0, 2.0)]


@pytest.mark.parametrize("mode", ["step", "samples", "epoch", "wall", "wall resumed"])
@pytest.mark.parametrize("log_x", [False, True])
def test_the_readout_finds_the_nearest_point_as_a_full_scan_does(mode, log_x):
    rng = np.random.default_rng(7)
    steps = np.unique(rng.integers(1, 5000, 400)).astype(float)
    walls = 1000.0 + np.cumsum(rng.random(len(steps)))
    if mode == "wall resumed":  # resumed from a checkpoint on a machine whose clock was behind: walls step back
        walls[200:] -= 50.0
        mode = "wall"
    model = CurveModel()
    model.show({"a": {"train/loss": (steps, rng.random(len(steps)), walls),
                      "epoch": ([1000, 2000, 3000], [1, 2, 3], [1500.0, 1600.0, 1700.0])}}, batch_sizes={"a": 32})
    model.set_x_mode(mode)
    model.set_log_x(log_x)
    s = model.series["a"]["train/loss"]
    xs = model.x_values("a", s)
    ux = np.log10(np.where(xs > 0, xs, np.nan)) if log_x else xs
    for x in rng.uniform(np.nanmin(ux), np.nanmax(ux), 25):
        best = int(np.nanargmin(np.abs(ux - x)))
        (got,) = model.readout("loss", float(x))
        assert (np.log10(got.x) if log_x else got.x) == pytest.approx(ux[best])
        assert got.value == s.values[best]
