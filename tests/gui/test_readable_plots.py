"""Issue 22 point 5: plots readable at 1024×768 — parallel-coordinate titles never overlap, the confusion
matrix's labels stay off its cells, every plot that can be empty shows a hint instead of meaningless axes."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRectF

from studio.core.runs.compare import Axis
from studio.gui.plots.empty_hint import EmptyHint, hint_of
from studio.gui.plots.evaluation_views import ConfusionView, ReliabilityView
from studio.gui.plots.parallel import ParallelCoordinates

NAMES = ("optimizer.lr", "optimizer.weight_decay", "train.batch_size", "model.widths", "train.epochs",
         "data.aug_rotation", "model.activation", "test_acc")


def axes(n: int) -> list[Axis]:
    return [Axis(NAMES[i], [0.0, 0.5, 1.0], [(0.0, "0"), (1.0, "1")], log=i == 0) for i in range(n)]


def title_rects(plot: ParallelCoordinates) -> list[QRectF]:
    return [t.sceneBoundingRect() for t in plot.titles]


@pytest.mark.parametrize("width", [420, 700, 1000])
def test_parallel_axis_titles_do_not_overlap(qtbot, width):
    plot = ParallelCoordinates()
    qtbot.addWidget(plot)
    plot.resize(width, 360)
    with qtbot.waitExposed(plot):
        plot.show()
    plot.show_axes(axes(len(NAMES)), ["a", "b", "c"], [0.1, 0.5, 0.9])
    qtbot.wait(20)  # Qt lays out and paints on the next turns of its event loop
    rects = title_rects(plot)
    assert len(rects) == len(NAMES)
    overlapping = [(NAMES[i], NAMES[j]) for i in range(len(rects)) for j in range(i + 1, len(rects))
                   if rects[i].intersects(rects[j])]
    assert overlapping == []
    view = plot.getPlotItem().getViewBox().sceneBoundingRect()
    for rect in rects:  # all inside the plot, above the axes' tops
        assert view.adjusted(-1, -1, 1, 1).contains(rect), (rect, view)


def test_parallel_titles_relayout_when_the_plot_narrows(qtbot):
    plot = ParallelCoordinates()
    qtbot.addWidget(plot)
    plot.resize(1200, 360)
    with qtbot.waitExposed(plot):
        plot.show()
    plot.show_axes(axes(6), ["a", "b", "c"], [0.1, 0.5, 0.9])
    wide_rows = plot.layout_titles()
    plot.resize(380, 360)
    qtbot.waitUntil(lambda: plot.layout_titles() > wide_rows)
    rects = title_rects(plot)
    assert not any(rects[i].intersects(rects[j]) for i in range(len(rects)) for j in range(i + 1, len(rects)))


def test_parallel_empty_shows_a_hint(qtbot):
    plot = ParallelCoordinates()
    qtbot.addWidget(plot)
    plot.show()
    assert plot.empty.shown and "Tick two or more runs" in plot.empty.text()
    plot.show_axes(axes(3), ["a"], [0.5])
    assert not plot.empty.shown
    plot.show_empty()
    assert plot.empty.shown and plot.titles == []


def test_confusion_matrix_labels_stay_off_the_cells(qtbot):
    view = ConfusionView()
    qtbot.addWidget(view)
    view.resize(420, 420)  # the matrix's share of a 1024×768 window
    with qtbot.waitExposed(view):
        view.show()
    assert view.empty.shown and view.plot.getPlotItem().getAxis("left").isVisible() is False
    classes = [f"class{i}" for i in range(10)]
    counts = [[17 if i == j else 1 for j in range(10)] for i in range(10)]
    view.show_matrix(counts, classes)
    qtbot.wait(50)  # Qt lays out and paints on the next turns of its event loop
    assert not view.empty.shown
    left, bottom = view.plot.getAxis("left"), view.plot.getAxis("bottom")
    assert left.isVisible() and bottom.isVisible()
    assert left.style["tickLength"] == 0 and bottom.style["tickLength"] == 0  # no marks drawn into the cells
    cells = view.plot.getPlotItem().getViewBox().sceneBoundingRect()
    # the axes (their tick labels) end where the cells start: nothing drawn over column 0 or the last row
    assert left.sceneBoundingRect().right() <= cells.left() + 0.5
    assert bottom.sceneBoundingRect().top() >= cells.bottom() - 0.5
    # the labels' text ends before the first column with a gap: "17" is not read as "−17"
    assert left.style["tickTextOffset"][0] >= 5


def test_empty_hint_hides_meaningless_axes_and_comes_back(qtbot):
    view = ReliabilityView()
    qtbot.addWidget(view)
    view.resize(400, 300)
    with qtbot.waitExposed(view):
        view.show()
    hint = hint_of(view)
    assert isinstance(hint, EmptyHint) and hint.shown and hint.label.isVisible()
    assert hint.label.geometry() == view.rect()  # over the whole plot, centred text
    assert not view.getPlotItem().getAxis("bottom").isVisible()
    view.show_reliability({"edges": [0, 0.5, 1], "accuracy": [0.4, 0.9], "confidence": [0.45, 0.8], "ece": 0.07})
    assert not hint.shown and view.getPlotItem().getAxis("bottom").isVisible()


def test_log_ticks_are_plain_numbers_and_few():
    from studio.gui.tabs.scaling_laws import log_ticks

    major, minor = log_ticks(17, 410)
    assert [label for _, label in major] == ["20", "50", "100", "200"]
    assert all(label == "" for _, label in minor) and len(minor) > 0
    major, _ = log_ticks(10, 4e6)
    assert [label for _, label in major] == ["10", "100", "1000", "10000", "1e5", "1e6"]
    assert len(log_ticks(1e-6, 1e9)[0]) <= 7


def test_scaling_plot_names_runs_keeps_the_legend_off_the_lines_and_hints_when_empty(qtbot, tmp_path, request):
    from studio.core.config import RunConfig
    from studio.core.maths.scaling_fit import fit_power_law
    from studio.core.runs.store import RunStore
    from studio.gui.tabs.scaling_laws import ScalingLawsTab
    from tests.gui.conftest import new_session

    store = RunStore(tmp_path)
    runs = [store.create_run(RunConfig().with_overrides([f"optimizer.lr={lr}"])) for lr in (0.01, 0.1)]
    session = new_session(store)
    request.addfinalizer(lambda: session.shutdown(wait_s=10))
    tab = ScalingLawsTab(session)
    qtbot.addWidget(tab)
    tab.resize(700, 560)
    with qtbot.waitExposed(tab):
        tab.show()
    assert tab.empty.shown and not tab.plot.getPlotItem().getAxis("left").isVisible()
    fits = []
    for k, run in enumerate(runs):
        x = [10.0 * 2 ** i for i in range(8)]
        y = [(2 + k) * v ** -0.4 + 0.05 for v in x]
        fit = fit_power_law(x, y)
        grid = [x[0] * (x[-1] * 4 / x[0]) ** (i / 40) for i in range(41)]
        low, high = fit.band(grid)
        fits.append({"runs": [run.id], "a": fit.a, "b": fit.b, "c": fit.c, "r2": fit.r2, "points": 8,
                     "x_max": fit.x_max, "data": {"x": x, "y": y},
                     "curve": {"x": grid, "y": fit.predict(grid).tolist(), "low": low.tolist(),
                               "high": high.tolist()}})
    tab._name_runs()
    tab.draw({"against": "steps", "metric": "val/loss", "fits": fits})
    qtbot.wait(50)  # Qt lays out and paints on the next turns of its event loop
    assert not tab.empty.shown
    labels = [label.text for _, label in tab.legend.items]
    assert any("lr=0.01" in t for t in labels) and any("lr=0.1" in t for t in labels), labels
    assert not any(run.id[-8:] in t for t in labels for run in runs)  # named by what differs, not by id
    view = tab.plot.getPlotItem().getViewBox().sceneBoundingRect()
    assert tab.legend.sceneBoundingRect().top() >= view.bottom() - 0.5  # under the plot, not over the lines


def test_a_cut_run_name_is_whole_in_the_tooltip(qtbot):
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QComboBox

    from studio.gui.widgets.run_picker import full_names_as_tooltips

    box = QComboBox()
    qtbot.addWidget(box)
    box.setToolTip("The run to evaluate")
    box.setMinimumContentsLength(8)
    box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    full_names_as_tooltips(box)
    long = "mlp · adam · moons · lr=0.003 · widths=[512, 512] · 20261124-122741-4daa6f0b"
    box.addItem("short", "a")
    box.addItem(long, "b")
    box.show()
    box.setCurrentIndex(1)
    assert box.width() < box.fontMetrics().horizontalAdvance(long)  # it is cut on screen
    assert box.toolTip().splitlines() == [long, "The run to evaluate"]
    assert box.itemData(1, Qt.ItemDataRole.ToolTipRole) == long
    box.setCurrentIndex(0)
    assert box.toolTip().startswith("short\n")


def test_a_demo_before_its_first_frame_shows_a_hint_not_axes(qtbot, window, monkeypatch):
    from studio.core.demos import recordings
    from studio.gui.plots.empty_hint import plot_items

    monkeypatch.setattr(recordings, "shipped", lambda _demo: None)  # a demo with no recording (or a damaged one)
    lab = window.pages.tab("teaching_lab")
    window.tabs.setCurrentWidget(lab)
    view = lab.open("optimizer_race")
    plots = plot_items(view.graphics)
    assert plots and view.empty.shown and view.empty.label.isVisible()
    assert not any(p.getAxis("bottom").isVisible() for p in plots)
    view.empty.hide_hint()  # what the first frame or the result does (DemoView._frame, _done)
    assert not view.empty.shown and all(p.getAxis("bottom").isVisible() for p in plots)
