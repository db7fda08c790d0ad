"""Issue 33.6 on the curves view (offscreen): the Metrics menu lists every metric the shown runs logged and plots a
chosen custom one (a run that logged "train/grad_norm"), the window remembers the choice; the read-out under the
pointer (a synthetic mouse move) shows each shown run's value at the pointer's x, smoothed and raw; and no plot is
squeezed below its least height: the plots scroll instead."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF
from PySide6.QtTest import QTest

from studio.core.maths.smoothing import ema
from studio.gui.plots.curves import CurvesView

STEPS = list(range(10, 410, 10))


def run(scale: float = 1.0) -> dict:
    loss = [scale * (0.5 + 2.0 * np.exp(-s / 100)) for s in STEPS]
    return {"train/loss": (STEPS, loss), "val/loss": ([200, 400], [scale * 1.0, scale * 0.7]),
            "train/grad_norm": (STEPS, [10.0 / (1 + s / 100) for s in STEPS]), "epoch": ([200, 400], [1, 2])}


@pytest.fixture
def view(qtbot):
    view = CurvesView()
    qtbot.addWidget(view)
    view.resize(900, 700)
    view.show()
    qtbot.waitExposed(view)
    view.show_runs({"a": run(), "b": run(1.5)}, {"a": "small lr", "b": "large lr"})
    return view


def test_the_metrics_menu_lists_what_was_logged_and_plots_a_chosen_custom_metric(qtbot, view):
    remembered = []
    view.metrics_chosen.connect(remembered.append)
    view.metrics_menu.aboutToShow.emit()  # what opening the menu fills in
    actions = {a.text(): a for a in view.metrics_menu.actions() if a.isCheckable()}
    assert list(actions) == ["train/loss", "val/loss", "train/grad_norm"]
    assert [a.isChecked() for a in actions.values()] == [True, True, False]
    assert "metric:train/grad_norm" not in view.plots
    actions["train/grad_norm"].trigger()
    assert "metric:train/grad_norm" in view.plots and remembered == [{"train/grad_norm": True}]
    plot = view.plots["metric:train/grad_norm"]
    assert plot.titleLabel.text == "train/grad_norm"
    assert view.point_count("a", "train/grad_norm") == len(STEPS) and view.point_count("b", "train/grad_norm")
    view.metrics_menu.aboutToShow.emit()
    unchecked = next(a for a in view.metrics_menu.actions() if a.text() == "val/loss")
    unchecked.trigger()  # a known metric off: its line goes, its plot stays for the train loss
    assert "loss" in view.plots and ("a", "val/loss") not in view.items and view.point_count("a", "train/loss")


def test_the_window_remembers_the_chosen_metrics(qtbot, window):
    curves = window.curves_pane.curves
    curves.show_runs({"a": run()})
    curves.set_metric_shown("train/grad_norm", True)
    curves.set_metric_shown("lr", False)
    assert window.prefs.metric_choices == {"train/grad_norm": True, "lr": False}
    from studio.gui.app.main_window import MainWindow
    from tests.gui.conftest import new_session

    again = MainWindow(new_session(window.session.store), probe_backend=False, prefs=window.prefs)
    qtbot.addWidget(again)
    again.curves_pane.curves.show_runs({"a": run()})
    assert "metric:train/grad_norm" in again.curves_pane.curves.plots and "lr" not in again.curves_pane.curves.plots
    again.session.shutdown(wait_s=5)


def move_to(qtbot, view: CurvesView, key: str, x: float, y: float) -> None:
    """A synthetic mouse move to (x, y) in plot ``key``'s data coordinates."""
    qtbot.wait(50)  # the axes size themselves to their tick labels once painted: the plot's place settles
    box = view.plots[key].getViewBox()
    at = view.graphics.mapFromScene(box.mapViewToScene(QPointF(x, y)))
    QTest.mouseMove(view.graphics.viewport(), at)
    qtbot.waitUntil(lambda: view.readout.box.isVisible() or view.readout.key is not None, timeout=2000)


def test_the_readout_shows_each_runs_value_at_the_pointer(qtbot, view):
    move_to(qtbot, view, "loss", 203.0, 1.5)
    readout = view.readout
    assert readout.key == "loss" and readout.box.isVisible()
    got = [(r.run_id, r.metric, r.x, r.value) for r in readout.readings]
    a, b = run(), run(1.5)
    assert got == [("a", "train/loss", 200.0, a["train/loss"][1][19]), ("a", "val/loss", 200.0, 1.0),
                   ("b", "train/loss", 200.0, b["train/loss"][1][19]), ("b", "val/loss", 200.0, 1.5)]
    text = readout.box.text()
    assert "step 200" in text and f"{a['train/loss'][1][19]:.4g}" in text and "large lr" in text
    data = view.plots["loss"].getViewBox().mapSceneToView(view.graphics.mapToScene(readout.box.geometry()))
    dots = [(r.x, r.value) for r in readout.readings]
    assert not [d for d in dots if data.boundingRect().contains(QPointF(*d))]  # the box hides no value it reads
    # off every plot: the corner (QTest takes a null point, (0, 0), for the widget's centre). As in move_to, the
    # repaint the box's appearance asked for comes first: offscreen, a QTest move sent while it is pending was lost
    # (in a real xcb window the box goes either way: checked with xdotool)
    qtbot.wait(50)
    QTest.mouseMove(view.graphics.viewport(), QPoint(2, 2))
    qtbot.waitUntil(lambda: not readout.box.isVisible(), timeout=2000)  # the box goes


def test_with_smoothing_the_readout_gives_smoothed_and_raw(qtbot, view):
    view.set_smoothing(0.6)
    move_to(qtbot, view, "loss", 100.0, 1.5)
    a = next(r for r in view.readout.readings if r.run_id == "a" and r.metric == "train/loss")
    raw = run()["train/loss"][1]
    assert a.x == 100.0 and a.value == raw[9] and a.smoothed == pytest.approx(ema(np.array(raw), 0.6)[9])
    assert f"{a.smoothed:.4g}" in view.readout.box.text() and f"raw {a.value:.4g}" in view.readout.box.text()


def test_a_short_view_scrolls_the_plots_instead_of_squeezing_them(qtbot, view):
    view.set_metric_shown("train/grad_norm", True)  # five plots: three rows
    view.resize(700, 380)
    qtbot.waitUntil(lambda: view.plot_scroll.verticalScrollBar().maximum() > 0, timeout=2000)
    least = view.grid.style.min_height
    assert all(p.sceneBoundingRect().height() >= least - 1 for p in view.plots.values())
    view.resize(700, 1400)  # room enough: no scrolling, the plots share the height
    qtbot.waitUntil(lambda: view.plot_scroll.verticalScrollBar().maximum() == 0, timeout=2000)
    assert min(p.sceneBoundingRect().height() for p in view.plots.values()) > least + 100


def test_plots_that_come_before_others_move_them_and_every_plot_keeps_its_own_cell(qtbot, view):
    """A stored run's metrics arrive by name: "train/grad_norm" before "train/perplexity", so a chosen custom plot
    can come before the Perplexity plot, which has to move out of the cell it spanned."""
    view.show_runs({"t": {**run(), "train/perplexity": (STEPS, [5.0] * len(STEPS))}})
    assert view.plots and "perplexity" in view.plots
    view.set_metric_shown("train/grad_norm", True)
    cells = {}
    layout = view.graphics.ci
    for key, plot in view.plots.items():
        cells[key] = layout.items[plot]
    taken = [cell for cs in cells.values() for cell in cs]
    assert len(taken) == len(set(taken)) and len(cells) == 6  # no two plots in one cell
    assert max(len(c) for c in cells.values()) == 1  # six plots: none spans a row
    view.set_metric_shown("train/grad_norm", False)
    assert [len(layout.items[view.plots[k]]) for k in view.model.plots][-1] == 2  # the odd last one spans again


def ticks(plot, side: str) -> list[str]:
    axis = plot.getAxis(side)
    lo, hi = plot.getViewBox().viewRange()[0 if side == "bottom" else 1]
    strings = []
    for spacing, values in axis.tickValues(lo, hi, axis.width() if side == "bottom" else axis.height()):
        strings += axis.tickStrings(values, axis.autoSIPrefixScale, spacing)
    return strings


def test_a_single_point_is_drawn_clear_of_the_axes_at_a_whole_step(qtbot):
    """Issue 33.6: a run's single point sat on the plot's edge, by the tick labels, over ticks 9.6 … 10.4."""
    view = CurvesView()
    qtbot.addWidget(view)
    view.resize(800, 600)
    view.show()
    qtbot.waitExposed(view)
    view.show_runs({"one": {"train/loss": ([10], [2.3]), "val/loss": ([10], [2.5])}})
    qtbot.wait(50)
    plot = view.plots["loss"]
    assert ticks(plot, "bottom") == ["10"]  # whole steps only
    box = plot.getViewBox()
    (x0, x1), (y0, y1) = box.viewRange()
    for y in (2.3, 2.5):  # each point, with its dot's radius, inside the data area by some pixels
        at = box.mapViewToScene(QPointF(10.0, y))
        edge = box.sceneBoundingRect()
        assert edge.top() + 10 < at.y() < edge.bottom() - 10 and edge.left() + 10 < at.x() < edge.right() - 10
    view.set_x_mode("wall")  # seconds are not whole things: fractions are fine there
    assert view.plots["loss"].getAxis("bottom").whole is False


def test_the_window_remembers_how_seed_groups_are_drawn(qtbot, window):
    curves = window.curves_pane.curves
    assert curves.band_actions["std"].isChecked()  # the mean ± std until chosen
    curves.band_actions["ci95"].trigger()
    assert window.prefs.seed_band == "ci95"
    from studio.gui.app.main_window import MainWindow
    from tests.gui.conftest import new_session

    again = MainWindow(new_session(window.session.store), probe_backend=False, prefs=window.prefs)
    qtbot.addWidget(again)
    assert again.curves_pane.curves.band_actions["ci95"].isChecked()
    assert again.curves_pane.curves.model.band_kind == "ci95"
    again.session.shutdown(wait_s=5)
