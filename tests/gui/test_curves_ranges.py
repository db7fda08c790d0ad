"""Issue 22: the curves' ranges follow the data: every x axis mode shows the data (not the last mode's range),
a new run's first point gets its own range, and a text run's Perplexity plot goes when image runs are shown."""

import numpy as np
import pytest

from studio.gui.plots.curve_model import X_AXES
from studio.gui.plots.curves import CurvesView

STEPS = list(range(20, 1001, 20))


def run_data(epochs: int = 10) -> dict:
    ends = [100 * i for i in range(1, epochs + 1)]
    return {"train/loss": (STEPS, list(np.linspace(2, 0.3, len(STEPS))), [1000 + 0.05 * s for s in STEPS]),
            "val/loss": (ends, list(np.linspace(1.5, 0.4, epochs)), [1000 + 0.05 * s for s in ends]),
            "epoch": (ends, list(range(1, epochs + 1)), [1000 + 0.05 * s for s in ends])}


def shown(view: CurvesView, qtbot, key: str = "loss") -> tuple[list[float], list[float]]:
    qtbot.wait(10)  # pyqtgraph settles its ranges when it paints
    x, y = view.plots[key].viewRange()
    return x, y


def holds(view_range: list[float], bounds: tuple[float, float]) -> bool:
    """The range holds the data and the data fill at least half of it (not a speck in a 0–45,000 span)."""
    (lo, hi), (d0, d1) = view_range, bounds
    return lo <= d0 and d1 <= hi and (d1 - d0) >= 0.5 * (hi - lo)


@pytest.mark.parametrize("log_x", [False, True])
def test_every_x_axis_mode_fits_the_data_in_its_units(qtbot, log_x):
    view = CurvesView()
    qtbot.addWidget(view)
    view.resize(900, 600)
    view.show()
    view.show_runs({"r": run_data()}, {"r": "run"}, {"r": 45})
    view.set_log_x(log_x)
    # every mode after every other, "samples seen" (0–45,000) → epoch (0–10) was the one that lost the curves
    for mode in ["samples", "epoch", "wall", "step", "samples", "wall", "epoch", "step"]:
        view.set_x_mode(mode)
        x, y = shown(view, qtbot)
        bounds = view.data_bounds("loss")
        assert bounds is not None
        assert holds(x, bounds[0]), (mode, x, bounds)
        assert holds(y, bounds[1]), (mode, y, bounds)
        item = view.items[("r", "train/loss")]
        assert len(item.getData()[0]) > 10, mode  # the points are drawn, not downsampled away
    assert set(X_AXES) <= {"step", "epoch", "samples", "wall"}


def test_a_new_runs_first_point_is_not_drawn_on_the_previous_runs_axes(qtbot):
    view = CurvesView()
    qtbot.addWidget(view)
    view.resize(900, 600)
    view.show()
    view.show_runs({"old": run_data()}, {"old": "old"}, {"old": 45})
    assert shown(view, qtbot)[0][1] > 900  # the old run's steps reach 1,000
    view.show_runs({}, {})
    view.add_run("new", "new")
    view.add_rows("new", [(5, "train/loss", 3.0, 1.0)])
    view.redraw()
    x, y = shown(view, qtbot)
    assert x[0] < 5 < x[1] and x[1] - x[0] < 5, x  # around step 5, not ±500 of the old run's span
    assert y[0] < 3.0 < y[1] and y[1] - y[0] < 1, y
    view.add_rows("new", [(10, "train/loss", 2.0, 2.0)])
    view.redraw()
    x, y = shown(view, qtbot)
    assert x[0] <= 5 and 10 <= x[1] and x[1] - x[0] < 10, x  # and it follows its next points


def test_a_text_runs_perplexity_plot_does_not_stay_under_image_runs(qtbot):
    view = CurvesView()
    qtbot.addWidget(view)
    view.show_runs({"text": {"train/loss": ([1, 2], [5.0, 4.0]), "train/perplexity": ([1, 2], [150.0, 60.0])}})
    assert "perplexity" in view.plots
    view.show_runs({"image": run_data()})
    assert "perplexity" not in view.plots
    assert all(view.graphics.ci.layout.itemAt(i) is not None for i in range(view.graphics.ci.layout.count()))
    assert len(view.graphics.ci.items) == 4  # loss, accuracy, learning rate, throughput; nothing left behind
    view.show_runs({"text": {"train/perplexity": ([1, 2], [150.0, 60.0])}})  # and it comes back with text
    assert "perplexity" in view.plots and view.point_count("text", "train/perplexity") == 2
