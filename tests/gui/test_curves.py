import numpy as np
import pytest

from studio.core.maths.smoothing import ema
from studio.gui.plots.curves import TICK_MS, CurvesView


def test_ema_is_debiased_like_tensorboard():
    assert np.allclose(ema(np.array([2.0, 2.0, 2.0]), 0.9), [2.0, 2.0, 2.0])  # no pull towards 0 at the start
    out = ema(np.array([0.0, 1.0]), 0.5)
    assert out[1] == pytest.approx((0.5 * 0.5 * 0 + 0.5 * 1.0) / (1 - 0.25))


def test_live_rows_append_once_and_optional_plots_appear(qtbot):
    view = CurvesView()
    qtbot.addWidget(view)
    view.show_runs({"a": {"train/loss": ([1, 2], [1.0, 0.5])}}, {"a": "a"})
    view.add_rows("a", [(2, "train/loss", 0.5, 0.0), (3, "train/loss", 0.4, 0.0)])  # step 2 is a repeat
    view.redraw()
    assert view.point_count("a", "train/loss") == 3
    assert "sharpness" not in view.plots
    view.add_rows("a", [(3, "sharpness/top_eig", 12.0, 0.0)])
    view.redraw()
    assert "sharpness" in view.plots and view.point_count("a", "sharpness/top_eig") == 1
    view.show_runs({"a": {"train/loss": ([1], [1.0])}, "b": {"sharpness/top_eig": ([5], [3.0])}})
    assert view.point_count("b", "sharpness/top_eig") == 1 and view.point_count("a", "train/loss") == 1


def test_live_points_of_many_runs_are_paced_but_always_drawn(qtbot, monkeypatch):
    from studio.gui.plots import live_pace

    monkeypatch.setattr(live_pace, "MAX_S", 0.3)  # however dear a draw, the next within 0.3 s
    monkeypatch.setattr(live_pace, "BUDGET", 1e-6)  # every draw dear: always the longest wait
    runs = {f"r{i}": {"train/loss": ([1], [1.0])} for i in range(live_pace.FEW_RUNS + 2)}
    view = CurvesView()
    qtbot.addWidget(view)
    view.resize(800, 600)
    view.show()
    view.show_runs(runs, {r: r for r in runs})
    qtbot.waitUntil(lambda: not view.loading)
    for run_id in runs:
        view.add_rows(run_id, [(2, "train/loss", 0.5, 0.0)])
    view.redraw()  # the first live draw: at once
    assert all(view.point_count(r, "train/loss") == 2 for r in runs)
    qtbot.waitUntil(lambda: view.pace.last_cost_s > 0)  # painted: its cost known, the next draw waits
    for run_id in runs:
        view.add_rows(run_id, [(3, "train/loss", 0.3, 0.0)])
    view.redraw()
    assert view.point_count("r0", "train/loss") == 2  # not yet
    assert view.timer.interval() > TICK_MS  # and the timer sleeps until the pace allows, not ticking meanwhile
    qtbot.waitUntil(lambda: all(view.point_count(r, "train/loss") == 3 for r in runs), timeout=3000)  # the tick


def test_the_redraw_timer_runs_only_while_live_rows_come(qtbot):
    view = CurvesView()
    qtbot.addWidget(view)
    view.show_runs({"a": {"train/loss": ([1, 2], [1.0, 0.5])}}, {"a": "a"})
    qtbot.waitUntil(lambda: not view.loading)
    assert not view.timer.isActive()  # runs that are not training: no tick at all
    view.add_rows("a", [(3, "train/loss", 0.4, 0.0)])
    assert view.timer.isActive()
    qtbot.waitUntil(lambda: view.point_count("a", "train/loss") == 3)  # the tick draws it …
    qtbot.waitUntil(lambda: not view.timer.isActive())  # … and the next, finding nothing new, stops the timer
    view.ticking = False  # a recording draws its frames itself
    view.add_rows("a", [(4, "train/loss", 0.3, 0.0)])
    assert not view.timer.isActive()


def test_a_live_range_grows_with_headroom_and_stays_while_points_fall_inside(qtbot):
    """Live points past the range grow it a tenth further, and the next ones inside it move no axis (no axis
    repainted for each live draw); a new selection fits tightly again."""
    view = CurvesView()
    qtbot.addWidget(view)
    view.resize(800, 600)
    view.show()
    view.show_runs({"a": {"train/loss": (list(range(100)), [1.0 / (s + 1) for s in range(100)])}}, {"a": "a"})
    qtbot.waitUntil(lambda: not view.loading)
    box = view.plots["loss"].getViewBox()
    qtbot.waitUntil(lambda: view.grid.bounds("loss") is not None)
    fitted = box.viewRange()[0]
    assert fitted[1] < 110  # tight around steps 0…99 (with pyqtgraph's small padding)
    view.add_rows("a", [(120, "train/loss", 0.005, 0.0)])
    qtbot.waitUntil(lambda: view.point_count("a", "train/loss") == 101)
    box.updateAutoRange()
    grown = box.viewRange()[0]
    assert grown[1] > 120 + 0.08 * 120 and grown[0] > -10  # room past the new point, none before step 0
    moved = []
    box.sigXRangeChanged.connect(lambda *_: moved.append(1))
    view.add_rows("a", [(125, "train/loss", 0.004, 0.0)])
    qtbot.waitUntil(lambda: view.point_count("a", "train/loss") == 102)
    box.updateAutoRange()
    assert box.viewRange()[0] == grown and not moved  # inside the room: nothing moved
    view.show_runs({"b": {"train/loss": (list(range(50)), [1.0] * 50)}}, {"b": "b"})
    qtbot.waitUntil(lambda: not view.loading and view.point_count("b", "train/loss") == 50)
    box.updateAutoRange()
    assert box.viewRange()[0][1] < 55  # a new selection: tight again


def test_the_faint_raw_line_is_fed_only_while_smoothing_shows_it(qtbot):
    view = CurvesView()
    qtbot.addWidget(view)
    view.show_runs({"a": {"train/loss": ([1, 2, 3], [1.0, 0.5, 0.7])}}, {"a": "a"})
    qtbot.waitUntil(lambda: not view.loading)
    raw = view.raw_items[("a", "train/loss")]
    assert not raw.isVisible() and (raw.xData is None or not len(raw.xData))  # hidden: never fed
    view.set_smoothing(0.5)
    qtbot.waitUntil(lambda: raw.xData is not None and len(raw.xData) == 3)
    assert raw.isVisible() and list(raw.yData) == [1.0, 0.5, 0.7]


def test_a_fitted_range_keeps_the_extreme_points_clear_of_the_plot_edges(qtbot):
    """The lowest and highest points sit at least EDGE_PX pixels inside the plot (a dot drawn whole, clear of the x
    axis and its tick labels; pyqtgraph's own padding left ~8 px in a small plot)."""
    from studio.gui.plots.curve_plots import EDGE_PX

    view = CurvesView()
    qtbot.addWidget(view)
    view.resize(600, 250)  # plots at their least height: a data area of ~100 px
    view.show()
    view.show_runs({"a": {"train/loss": ([1, 2, 3, 4], [2.0, 0.5, 1.0, 0.1])}}, {"a": "a"})
    qtbot.waitUntil(lambda: not view.loading and view.point_count("a", "train/loss") == 4)
    box = view.plots["loss"].getViewBox()
    (_, _), (bottom, top) = box.viewRange()
    pixels = box.height() / (top - bottom)
    below, above = (0.1 - bottom) * pixels, (top - 2.0) * pixels  # the lowest and highest point's room, in pixels
    assert below >= EDGE_PX - 1 and above >= EDGE_PX - 1, (box.height(), below, above)
