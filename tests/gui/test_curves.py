import numpy as np
import pytest

from studio.core.maths.smoothing import ema
from studio.gui.plots.curves import CurvesView


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
