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
    plot.show()
    qtbot.waitExposed(plot)
    plot.show_axes(axes(len(NAMES)), ["a", "b", "c"], [0.1, 0.5, 0.9])
    qtbot.wait(20)
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
    plot.show()
    qtbot.waitExposed(plot)
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
    assert plot.empty.shown and "Select two or more runs" in plot.empty.text()
    plot.show_axes(axes(3), ["a"], [0.5])
    assert not plot.empty.shown
    plot.show_empty()
    assert plot.empty.shown and plot.titles == []


def test_confusion_matrix_labels_stay_off_the_cells(qtbot):
    view = ConfusionView()
    qtbot.addWidget(view)
    view.resize(420, 420)  # the matrix's share of a 1024×768 window
    view.show()
    qtbot.waitExposed(view)
    assert view.empty.shown and view.plot.getPlotItem().getAxis("left").isVisible() is False
    classes = [f"class{i}" for i in range(10)]
    counts = [[17 if i == j else 1 for j in range(10)] for i in range(10)]
    view.show_matrix(counts, classes)
    qtbot.wait(50)
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
    view.show()
    qtbot.waitExposed(view)
    hint = hint_of(view)
    assert isinstance(hint, EmptyHint) and hint.shown and hint.label.isVisible()
    assert hint.label.geometry() == view.rect()  # over the whole plot, centred text
    assert not view.getPlotItem().getAxis("bottom").isVisible()
    view.show_reliability({"edges": [0, 0.5, 1], "accuracy": [0.4, 0.9], "confidence": [0.45, 0.8], "ece": 0.07})
    assert not hint.shown and view.getPlotItem().getAxis("bottom").isVisible()
