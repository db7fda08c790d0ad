"""The edge-of-stability view draws the sharpness against its threshold line (2/η, or (2 + 2β)/η), the loss beside."""

import numpy as np
import pytest

from studio.gui.demos.edge_of_stability_view import EdgeOfStabilityView


def frames(limit: float, count: int = 6, every: int = 10):
    losses = list(np.linspace(0.6, 0.1, every * (count - 1) + 1))
    out = []
    for i in range(count):
        step = i * every
        start = 0 if i == 0 else (i - 1) * every + 1
        out.append({"step": step, "sharpness": limit * (0.5 + 0.12 * i), "threshold": limit, "loss": losses[step],
                    "train_acc": 0.5, "loss_from": start, "losses": losses[start:step + 1]})
    return out


def legend_texts(view):
    return [label.text for _, label in view.sharp_plot.legend.items]


@pytest.fixture
def view(qtbot):
    v = EdgeOfStabilityView(session=None, recorded=False)  # live frames only, not the shipped recording
    v.resize(1200, 700)
    qtbot.addWidget(v)
    v.show()
    return v


def test_the_view_draws_the_sharpness_the_threshold_line_and_every_steps_loss(view):
    view.set_params({"steps": 50, "lr": 0.05})
    for frame in frames(40.0):
        view._frame(frame)
    assert view.frame_count() == 6
    view.show_frame(5)
    x, y = view.limit_item.getData()
    assert list(y) == [40.0, 40.0] and x[0] == 0 and x[-1] == 50  # the line spans the whole run
    assert len(view.sharp_item.getData()[0]) == 6
    assert len(view.loss_item.getData()[0]) == 51  # the loss of every step, not only at the measurements
    assert "2/η = 40" in legend_texts(view)
    assert "2/η = 40.0" in view.caption.text() and "at the edge" in view.caption.text()
    view.show_frame(1)  # the player goes back: only what was known then
    assert len(view.sharp_item.getData()[0]) == 2 and len(view.loss_item.getData()[0]) == 11
    assert "still sharpening" in view.caption.text()


def test_with_momentum_the_line_is_2_plus_2_beta_over_eta(view):
    view.set_params({"steps": 50, "lr": 0.095, "momentum": 0.9})
    for frame in frames(40.0):
        view._frame(frame)
    view.show_frame(5)
    assert "(2 + 2β)/η = 40" in legend_texts(view)
    assert view.caption.text().startswith("Step 50:") and "(2 + 2β)/η" in view.caption.text()


def test_presentation_mode_keeps_the_line_and_goes_black_on_white(view):
    for frame in frames(30.0):
        view._frame(frame)
    view.set_presentation(True)
    assert view.graphics.backgroundBrush().color().name() == "#ffffff"
    assert list(view.limit_item.getData()[1]) == [30.0, 30.0]
    assert view.limit_item.opts["pen"].widthF() > 2
    view.set_presentation(False)
