"""The curves say how often the train curves were logged (issue 22 point 8: TensorBoard logs every step, Studio
every train.metric_interval steps, 20 by default), read from the runs' own points."""

from __future__ import annotations

from studio.gui.plots.curves import CurvesView


def test_the_key_names_the_logging_interval_of_the_shown_runs(qtbot):
    view = CurvesView()
    qtbot.addWidget(view)
    every20 = ([20, 40, 60, 70], [1.0, 0.8, 0.7, 0.6])  # the last window cut short by the end of the run
    view.show_runs({"a": {"train/loss": every20}}, {"a": "run a"})
    assert view.model.logged_every() == [20]
    assert "a point every 20 steps (train.metric_interval)" in view.key.text()
    view.show_runs({"a": {"train/loss": every20}, "b": {"train/loss": ([1, 2, 3], [1.0, 0.9, 0.8])}},
                   {"a": "run a", "b": "run b"})
    assert "a point every 1 or 20 steps" in view.key.text()


def test_a_live_run_names_its_interval_once_its_points_show_it(qtbot):
    view = CurvesView()
    qtbot.addWidget(view)
    view.add_run("live", "live run")
    assert "solid: train ·" in view.key.text()  # no point yet: nothing to claim
    view.add_rows("live", [(1, "train/loss", 1.0, 0.0), (2, "train/loss", 0.9, 0.0)])
    view.redraw()
    assert "a point every 1 step (train" in view.key.text()
