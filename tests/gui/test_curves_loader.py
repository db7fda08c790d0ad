"""Issue 25 part B: the curves are read, smoothed and decimated off the GUI thread; a newer request supersedes an
older one; decimation keeps spikes and refines when zooming in; the drawn numbers are the directly computed ones."""

from __future__ import annotations

import re
import threading

import numpy as np
import pytest

from studio.core.config import RunConfig
from studio.core.maths.decimate import minmax_decimate
from studio.core.maths.smoothing import ema
from studio.core.runs.store import RunStore
from studio.gui.plots.curve_model import INLINE_POINTS, MAX_COLUMNS
from studio.gui.plots.curves import CurvesView

BOUND = 4 * MAX_COLUMNS + 2  # most points a curve over its whole range can keep


def make_run(store: RunStore, steps: int, loss=None, batch_size: int = 32) -> str:
    run = store.create_run(RunConfig().with_overrides([f"train.batch_size={batch_size}"]))
    s = np.arange(1, steps + 1)
    loss = np.exp(-s / steps) if loss is None else loss
    rows = [(int(k), "train/loss", float(v), 1000.0 + 0.01 * k) for k, v in zip(s, loss, strict=True)]
    store.log_metrics(run.id, rows + [(int(k), "lr", 0.1, 1000.0 + 0.01 * k) for k in s[::10]])
    return run.id


def view_of(qtbot) -> CurvesView:
    view = CurvesView()
    qtbot.addWidget(view)
    view.resize(1000, 700)
    view.show()
    return view


def load(qtbot, view: CurvesView, store, run_ids: list[str]) -> None:
    with qtbot.waitSignal(view.curves_drawn, timeout=10_000):
        view.load_runs(store, run_ids, {r: r for r in run_ids})


def test_selected_runs_are_read_off_the_gui_thread_with_a_hint_meanwhile(qtbot, tmp_path):
    store = RunStore(tmp_path)
    run = make_run(store, 300)
    view = view_of(qtbot)
    with qtbot.waitSignal(view.curves_drawn, timeout=10_000):
        view.load_runs(store, [run], {run: "run"})
        assert view.loading and view.loading_hint.isVisibleTo(view)  # the key is there, the curves on their way
        assert list(view.series) == [run]
    assert not view.loading and not view.loading_hint.isVisibleTo(view)
    assert view.loader.worker_threads and threading.get_ident() not in view.loader.worker_threads
    assert view.point_count(run, "train/loss") == 300 and view.point_count(run, "lr") == 30
    assert view.model.batch_sizes[run] == 32


def test_a_newer_selection_supersedes_the_older_one(qtbot, tmp_path):
    store = RunStore(tmp_path)
    a, b = make_run(store, 500), make_run(store, 300)
    view = view_of(qtbot)
    drawn: list[set[str]] = []
    view.curves_drawn.connect(lambda: drawn.append({r for r in view.series if view.point_count(r, "train/loss")}))
    view.load_runs(store, [a], {a: "A"})
    view.load_runs(store, [b], {b: "B"})  # before A's curves came
    qtbot.waitUntil(lambda: not view.loading, timeout=10_000)
    qtbot.wait(100)  # a late result for A would land now
    assert drawn == [{b}] and list(view.series) == [b] and view.point_count(b, "train/loss") == 300


class SlowStore:
    """A store whose reads are counted (the worker stops at its next check)."""

    def __init__(self, store: RunStore) -> None:
        self.store, self.reads = store, []

    def curves(self, run_ids, names=None):
        self.reads.extend(run_ids)
        return self.store.curves(run_ids, names)

    def params(self, run_id):
        return self.store.params(run_id)


class HeldStore(SlowStore):
    """A store whose first read holds the worker until ``release`` is set: the test supersedes the request
    meanwhile, at a known point of the read, whatever the machine's load."""

    def __init__(self, store: RunStore) -> None:
        super().__init__(store)
        self.reading, self.release = threading.Event(), threading.Event()

    def curves(self, run_ids, names=None):
        self.reading.set()
        assert self.release.wait(10), "the test never released the read"
        return super().curves(run_ids, names)


def test_a_superseded_read_stops_early(qtbot, tmp_path):
    store = RunStore(tmp_path)
    ids = [make_run(store, 20) for _ in range(10)]
    other = make_run(store, 30)
    held = HeldStore(store)
    view = view_of(qtbot)
    view.load_runs(held, ids)
    assert held.reading.wait(10)  # the worker is inside the first run's read
    with qtbot.waitSignal(view.curves_drawn, timeout=10_000):
        view.load_runs(held, [other], {other: other})  # supersedes the read under way
        held.release.set()
    assert [r for r in held.reads if r in ids] == ids[:1]  # it stopped at its next check: no second run read
    assert list(view.series) == [other] and view.point_count(other, "train/loss") == 30


def test_read_errors_land_in_the_window(qtbot, tmp_path):
    class Broken(SlowStore):
        def curves(self, run_ids, names=None):
            raise OSError("disk I/O error")

    store = RunStore(tmp_path)
    run = make_run(store, 10)
    view = view_of(qtbot)
    with qtbot.waitSignal(view.load_failed, timeout=10_000) as got:
        view.load_runs(Broken(store), [run])
    assert "disk I/O error" in got.args[0] and not view.loading


def test_a_one_sample_spike_in_a_long_run_stays_on_screen(qtbot):
    n = 20_000
    values = np.exp(-np.arange(n) / n)
    values[12_345] = 50.0
    view = view_of(qtbot)
    view.show_runs({"r": {"train/loss": (np.arange(1, n + 1), values)}})
    x, y = view.items[("r", "train/loss")].getData()
    assert len(x) <= BOUND < n and view.model.full_count("r", "train/loss") == n
    assert y.max() == 50.0 and x[np.argmax(y)] == 12_346
    assert y.min() == values.min()


def test_zooming_in_redecimates_that_range_at_more_detail(qtbot):
    n = 60_000
    steps = np.arange(1, n + 1)
    values = np.sin(steps / 7.0) + np.random.default_rng(0).normal(size=n) * 0.1
    view = view_of(qtbot)
    view.show_runs({"r": {"train/loss": (steps, values)}})
    item = view.items[("r", "train/loss")]
    before = np.count_nonzero((item.getData()[0] >= 30_000) & (item.getData()[0] <= 30_400))
    with qtbot.waitSignal(view.curves_drawn, timeout=5000):
        view.plots["loss"].setXRange(30_000, 30_400, padding=0)  # as the mouse wheel does
    x, y = item.getData()
    inside = (x >= 30_000) & (x <= 30_400)
    assert np.count_nonzero(inside) == 401 > before  # every point of the range, at full resolution now
    assert np.array_equal(y[inside], values[29_999:30_400])
    assert len(x) <= BOUND
    with qtbot.waitSignal(view.curves_drawn, timeout=5000):
        view.plots["loss"].enableAutoRange()  # back to the whole run: decimated again
    assert len(item.getData()[0]) <= BOUND


@pytest.mark.parametrize("n", [300, INLINE_POINTS + 10_000])  # prepared inline / on the loader's thread
def test_smoothing_and_x_axes_draw_the_directly_computed_numbers(qtbot, n):
    steps = np.arange(1, n + 1) * 2
    values = np.random.default_rng(n).normal(size=n) + 3
    walls = 5000.0 + 0.5 * np.arange(n)
    view = view_of(qtbot)
    view.show_runs({"r": {"train/loss": (steps, values, walls)}}, {"r": "r"}, {"r": 64})
    view.wait_drawn()
    item = view.items[("r", "train/loss")]
    for mode, x in [("samples", steps * 64.0), ("wall", walls - walls[0]), ("step", steps.astype(float))]:
        view.set_x_mode(mode)
        assert view.wait_drawn()
        columns = view.model.drawn_columns["loss"]  # the plot's width in pixels when the request was made
        assert np.array_equal(item.getData()[0], minmax_decimate(x, values, columns)[0]), mode
    view.set_smoothing(0.9)
    assert view.wait_drawn()
    columns = view.model.drawn_columns["loss"]
    smoothed = ema(values, 0.9)
    want_x, want_y = minmax_decimate(steps, smoothed, columns)
    x, y = item.getData()
    assert np.array_equal(x, want_x) and np.array_equal(y, want_y)
    raw = view.raw_items[("r", "train/loss")]
    assert raw.isVisible() and np.array_equal(raw.getData()[1], minmax_decimate(steps, values, columns)[1])


def test_gui_items_hold_points_on_screen_not_the_run(qtbot):
    view = view_of(qtbot)
    held = {}
    for n in (20_000, 80_000):
        steps = np.arange(1, n + 1)
        data = {f"r{i}": {"train/loss": (steps, np.cos(steps / 50.0) + i), "lr": (steps, np.full(n, 0.1))}
                for i in range(3)}
        view.show_runs(data)
        assert view.wait_drawn()
        drawn = [(key, item.getData()) for key, item in view.items.items() if item.getData()[0] is not None]
        for (_run, name), (x, _y) in drawn:
            assert len(x) <= 4 * view.model.drawn_columns["loss" if name == "train/loss" else "lr"] + 2
        held[n] = sum(x.nbytes + y.nbytes for _key, (x, y) in drawn)
    assert held[80_000] < 1.5 * held[20_000]  # 4× the points, about as many on screen


def test_live_rows_extend_a_long_run_without_losing_its_detail(qtbot, tmp_path):
    store = RunStore(tmp_path)
    run = make_run(store, 20_000)
    view = view_of(qtbot)
    view.load_runs(store, [run], {run: "live"})
    view.add_rows(run, [(20_000, "train/loss", 9.0, 0.0), (20_001, "train/loss", 7.0, 1200.0)])  # while reading
    qtbot.waitUntil(lambda: not view.loading, timeout=10_000)
    view.redraw()
    assert view.model.full_count(run, "train/loss") == 20_001  # the store's 20,000 and the one new point, once
    view.add_rows(run, [(20_002 + k, "train/loss", 0.5, 1200.0 + k) for k in range(100)])
    view.redraw()
    x, y = view.items[(run, "train/loss")].getData()
    assert view.model.full_count(run, "train/loss") == 20_101 and x[-1] == 20_101 and len(x) <= BOUND
    assert y.max() == 7.0


def test_many_runs_share_a_plots_point_budget(qtbot):
    from studio.gui.plots.curve_model import PLOT_POINTS

    steps = np.arange(1, 8001)
    view = view_of(qtbot)
    view.set_smoothing(0.5)
    view.show_runs({f"r{i}": {"train/loss": (steps, np.sin(steps / 30.0 + i))} for i in range(40)})
    assert view.wait_drawn()
    on_plot = [i for i in view.plots["loss"].listDataItems() if i.getData()[0] is not None]
    total = sum(len(i.getData()[0]) for i in on_plot)
    assert len(on_plot) == 80 and total <= PLOT_POINTS + 2 * len(on_plot)  # 40 smoothed curves and their raw
    y = view.items[("r0", "train/loss")].getData()[1]
    assert y.max() == ema(np.sin(steps / 30.0), 0.5).max()  # still every column's extremes


def test_a_big_selection_makes_its_plot_items_over_several_turns(qtbot, tmp_path):
    from studio.gui.plots.curve_key import KEY_NAMES
    from studio.gui.plots.curve_plots import RUNS_PER_TURN

    store = RunStore(tmp_path)
    ids = [make_run(store, 20) for _ in range(3 * RUNS_PER_TURN)]
    view = view_of(qtbot)
    view.set_band("runs")  # the same settings: one seed group, drawn here as a line per run
    with qtbot.waitSignal(view.curves_drawn, timeout=10_000):
        view.load_runs(store, ids, {r: f"run {i}" for i, r in enumerate(ids)})
        shown = re.findall(r"</span>&nbsp;(run \d+)", view.key.text())
        assert shown == [f"run {i}" for i in range(KEY_NAMES)]  # the first runs are named at once, the rest counted
        assert f"and {len(ids) - KEY_NAMES} more" in view.key.text()
        assert all(f"run {i}" in view.key.toolTip() for i in range(len(ids)))  # its tooltip names every run
        assert len({r for r, _n in view.items}) == RUNS_PER_TURN  # the rest come in the next turns
    assert all(view.point_count(r, "train/loss") == 20 for r in ids)
    assert len(view.plots["loss"].listDataItems()) == 3 * len(ids)  # train, its raw curve, validation: no doubles


def test_a_big_redraw_paints_the_plots_once_not_once_per_turn(qtbot):
    """Issue 40: drawing many curves over several turns of the event loop repainted every plot (its axes, its
    fitted range) each turn; the plots now paint once, when every line is in place and fitted."""
    from PySide6.QtCore import QEvent, QObject

    from studio.gui.plots.curves import CURVES_PER_TURN

    view = view_of(qtbot)
    steps = np.arange(1, 201)
    data = {f"r{i}": {"train/loss": (steps, np.exp(-steps / (50 + i))), "train/acc": (steps, 1 - np.exp(-steps / 80)),
                      "lr": (steps, np.full(200, 0.1))} for i in range(2 * CURVES_PER_TURN)}
    with qtbot.waitSignal(view.curves_drawn, timeout=30_000):
        view.show_runs(data)

    class Paints(QObject):
        count = 0

        def eventFilter(self, _obj, event):  # noqa: N802 - Qt's name
            if event.type() == QEvent.Type.Paint:
                Paints.count += 1
            return False

    paints = Paints()
    view.grid.graphics.viewport().installEventFilter(paints)
    at_drawn = []
    view.curves_drawn.connect(lambda: at_drawn.append(Paints.count))
    with qtbot.waitSignal(view.curves_drawn, timeout=30_000):
        view.set_smoothing(0.5)  # every curve prepared again: several turns' worth
    # while the lines were handed over, turn by turn, the plots did not paint (one paint may come first: the
    # smoothing's faint raw lines shown at once); then they paint with every line in place
    assert at_drawn[0] <= 1, at_drawn
    qtbot.waitUntil(lambda: Paints.count > at_drawn[0])
