"""Issue 33.3: on the wall-time axis a pause or a stop and resume is a gap in the line, not a straight line across
the time nothing was trained; the evaluation at an epoch's end is no gap. Through the curve model (no Qt)."""

from __future__ import annotations

import numpy as np

from studio.gui.plots.curve_data import prepare
from studio.gui.plots.curve_model import CurveModel, PlotView
from studio.gui.plots.wall_gaps import MIN_GAP_S, break_at

EVAL_S = 40.0  # an epoch end's evaluation: longer than MIN_GAP_S, shorter than an epoch (100 s)


def paused_run(pause_after: int | None = 200, pause_s: float = 600.0) -> dict:
    """A point every 20 steps at 1 s a step, epochs of 100 steps each followed by EVAL_S of evaluation, and a
    pause of ``pause_s`` after step ``pause_after``; val/loss at each epoch end."""
    steps = np.arange(20, 501, 20)
    walls, t = [], 1000.0
    for step in steps:
        t += 20.0
        if step - 20 > 0 and (step - 20) % 100 == 0:
            t += EVAL_S
        if pause_after is not None and step - 20 == pause_after:
            t += pause_s
        walls.append(t)
    walls = np.array(walls)
    ends = steps[steps % 100 == 0]
    end_walls = walls[np.isin(steps, ends)] + EVAL_S
    return {"train/loss": (steps, 3.0 / np.arange(1, len(steps) + 1), walls),
            "val/loss": (ends, 2.0 / np.arange(1, len(ends) + 1), end_walls),
            "epoch": (ends, np.arange(1, len(ends) + 1), end_walls)}


def drawn(run: dict, mode: str) -> dict:
    model = CurveModel()
    model.show({"r": run}, batch_sizes={"r": 64})
    model.set_x_mode(mode)
    return prepare(model.request(1, None, dict.fromkeys(model.plots, PlotView(None, 800)))).drawn


def test_a_pause_breaks_the_line_on_the_wall_time_axis():
    run = paused_run()
    d = drawn(run, "wall")[("r", "train/loss")]
    gaps = np.flatnonzero(np.isnan(d.y))
    assert len(gaps) == 1  # one break, where the pause was
    steps, walls = run["train/loss"][0], run["train/loss"][2]
    before, after = walls[steps == 200][0] - walls[0], walls[steps == 220][0] - walls[0]
    assert d.x[gaps[0] - 1] == before and d.x[gaps[0] + 1] == after
    assert np.isfinite(np.delete(d.y, gaps)).all() and len(d.y) == len(steps) + 1  # no point lost


def test_the_epoch_curves_break_at_the_pause_too():
    d = drawn(paused_run(), "wall")[("r", "val/loss")]
    assert np.isnan(d.y).sum() == 1  # the epoch-end points either side of the pause are not joined


def test_an_epoch_ends_evaluation_is_no_gap_and_other_axes_never_break():
    assert not np.isnan(drawn(paused_run(None), "wall")[("r", "train/loss")].y).any()
    for mode in ("step", "epoch", "samples"):
        assert not np.isnan(drawn(paused_run(), mode)[("r", "train/loss")].y).any()


def test_a_stop_and_a_resume_hours_later_is_a_gap_a_short_hiccup_is_not():
    resumed = drawn(paused_run(300, 3 * 3600.0), "wall")[("r", "train/loss")]
    assert np.isnan(resumed.y).sum() == 1
    hiccup = drawn(paused_run(300, MIN_GAP_S / 2), "wall")[("r", "train/loss")]
    assert not np.isnan(hiccup.y).any()


def test_break_at_leaves_curves_without_straddled_gaps_alone():
    x, y = np.array([0.0, 1.0, 2.0]), np.array([1.0, 2.0, 3.0])
    assert break_at(x, y, [(5.0, 9.0, 4.0)])[0] is x
    bx, by = break_at(x, y, [(1.0, 2.0, 0.8)])
    assert bx.tolist() == [0.0, 1.0, 1.5, 2.0] and np.isnan(by[2])
