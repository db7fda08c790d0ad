"""The Gantt chart: bars land on their lane and interval, grouped by kind with a legend entry each."""

from studio.gui.plots.gantt import Bar, GanttPlot


def test_bars_are_found_where_they_were_drawn_and_each_kind_gets_one_colour(qtbot):
    plot = GanttPlot()
    qtbot.addWidget(plot)
    bars = [Bar(0, 0.0, 1.0, "forward", "micro-batch 0"), Bar(1, 1.0, 2.0, "forward"), Bar(1, 2.0, 3.0, "backward"),
            Bar(0, 2.0, 3.0, "idle")]
    plot.set_bars(["rank 0", "rank 1"], bars, {"idle": "#cccccc"})
    assert plot.bar_at(1.5, 1.0).kind == "forward"
    assert plot.bar_at(2.5, 0.0).kind == "idle"
    assert plot.bar_at(0.5, 1.0) is None  # rank 1 starts at 1.0
    assert plot.colours["idle"] == "#cccccc"
    assert len(set(plot.colours.values())) == 3
    assert "micro-batch 0" in plot._describe(plot.bar_at(0.5, 0.0))
    plot.set_bars(["gpu 0"], [Bar(0, 0.0, 5.0, "job a")])  # redrawn from scratch
    assert list(plot.colours) == ["job a"] and plot.bar_at(1.0, 1.0) is None
