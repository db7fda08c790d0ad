"""Issue 36: the curves view draws runs that differ only in the seed as their mean with a shaded band instead of a
line each; the key names the group once; the Seeds setting switches to the 95 % interval or back to a line per
run; a run with other settings keeps its own line."""

import numpy as np
import pytest

from studio.gui.plots.curves import CurvesView

STEPS = np.arange(10, 2001, 10, dtype=float)
BASE = {"model.name": "mlp", "data.name": "moons", "optimizer.name": "adam", "optimizer.lr": 0.01}


def seeded_runs(n: int = 5) -> tuple[dict, dict]:
    rng = np.random.default_rng(3)
    data, params = {}, {}
    for i in range(n):
        data[f"s{i}"] = {"train/loss": (STEPS, np.exp(-STEPS / 500) + rng.normal(0, 0.05, len(STEPS)))}
        params[f"s{i}"] = {**BASE, "train.seed": i}
    data["other"] = {"train/loss": (STEPS, 0.5 * np.exp(-STEPS / 500))}
    params["other"] = {**BASE, "optimizer.lr": 0.1, "train.seed": 0}
    return data, params


def test_a_seed_group_is_drawn_as_its_mean_and_a_band(qtbot):
    view = CurvesView()
    qtbot.addWidget(view)
    view.resize(1000, 700)
    view.show()
    data, params = seeded_runs()
    with qtbot.waitSignal(view.curves_drawn, timeout=10_000):
        view.show_runs(data, {r: r for r in data}, params=params)
    ((gid, metric), (mean, lower, upper, fill)), = view.grid.bands.items.items()
    assert metric == "train/loss"
    shaded = fill.boundingRect()  # the band is painted between its edges
    assert shaded.width() == pytest.approx(STEPS[-1] - STEPS[0]) and shaded.height() > 0.1
    stack = np.vstack([data[f"s{i}"]["train/loss"][1] for i in range(5)])
    np.testing.assert_allclose(mean.yData, stack.mean(axis=0))
    np.testing.assert_allclose(upper.yData - lower.yData, 2 * stack.std(axis=0, ddof=1))
    assert not any(view.grid.items[(f"s{i}", metric)].isVisible() for i in range(5))
    assert view.grid.items[("other", metric)].isVisible()
    assert "× 5 seeds" in view.key.text() and "s3" not in view.key.text() and "± 1 std" in view.key.text()
    assert len(set(view.colours().values())) == 2  # the group's runs share the band's colour

    view.band_actions["ci95"].trigger()
    qtbot.waitUntil(lambda: bool(view.grid.bands.items) and not view.loading, timeout=10_000)
    (_m, lower, upper, _f), = view.grid.bands.items.values()
    np.testing.assert_allclose(upper.yData - lower.yData, 2 * 2.776 * stack.std(axis=0, ddof=1) / np.sqrt(5))

    view.band_actions["runs"].trigger()
    qtbot.waitUntil(lambda: not view.grid.bands.items and not view.loading, timeout=10_000)
    assert all(view.grid.items[(f"s{i}", metric)].isVisible() for i in range(5))
    assert "s3" in view.key.text()


def test_smoothing_smooths_each_run_before_the_band(qtbot):
    from studio.core.maths.smoothing import ema

    view = CurvesView()
    qtbot.addWidget(view)
    view.resize(1000, 700)  # a plot of more pixel columns than points: the band is on the runs' own steps
    view.show()
    data, params = seeded_runs(3)
    with qtbot.waitSignal(view.curves_drawn, timeout=10_000):
        view.show_runs(data, params=params)
    with qtbot.waitSignal(view.curves_drawn, timeout=10_000):
        view.smooth_box.setValue(0.9)
    (mean, *_), = view.grid.bands.items.values()
    smoothed = np.vstack([ema(np.asarray(data[f"s{i}"]["train/loss"][1]), 0.9) for i in range(3)])
    np.testing.assert_allclose(mean.yData, smoothed.mean(axis=0))
