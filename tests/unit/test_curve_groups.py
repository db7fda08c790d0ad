"""The curves view's seed groups without Qt: runs differing only in the seed form one band per metric, each run
smoothed before the mean is taken, on every x axis; a run with other settings stays on its own line."""

from __future__ import annotations

import numpy as np
import pytest

from studio.core.maths.smoothing import ema
from studio.gui.plots.curve_model import CurveModel

STEPS = np.arange(0, 1000, 10, dtype=float)


def _model(seeds: int = 4, smoothing: float = 0.0) -> tuple[CurveModel, list[np.ndarray]]:
    rng = np.random.default_rng(1)
    ys = [np.exp(-STEPS / 300) + rng.normal(0, 0.05, len(STEPS)) for _ in range(seeds)]
    data = {f"r{i}": {"train/loss": (STEPS, y, STEPS * 0.01 + i),
                      "epoch": (np.array([500.0, 990.0]), np.array([1.0, 2.0]))} for i, y in enumerate(ys)}
    data["other"] = {"train/loss": (STEPS, ys[0] * 2)}
    m = CurveModel()
    m.show(data, batch_sizes={r: 32 for r in data})
    base = {"model.name": "mlp", "data.name": "moons", "optimizer.lr": 0.01}
    m.set_params({f"r{i}": {**base, "train.seed": i} for i in range(seeds)})
    m.set_params({"other": {**base, "optimizer.lr": 0.1, "train.seed": 0}})
    m.set_smoothing(smoothing)
    return m, ys


def test_runs_differing_only_in_the_seed_form_one_group_drawn_as_the_mean_and_std() -> None:
    m, ys = _model()
    (g,) = m.groups()
    assert g.run_ids == ("r0", "r1", "r2", "r3") and "other" not in m.grouped()
    (b,) = m.bands("loss", 5000).values()
    stack = np.vstack(ys)
    np.testing.assert_allclose(b.x, STEPS)
    np.testing.assert_allclose(b.mean, stack.mean(axis=0))
    np.testing.assert_allclose(b.upper - b.mean, stack.std(axis=0, ddof=1))
    assert (b.n == 4).all()


def test_each_run_is_smoothed_before_the_group_is_aggregated() -> None:
    m, ys = _model(smoothing=0.8)
    (b,) = m.bands("loss", 5000).values()
    smoothed = np.vstack([ema(y, 0.8) for y in ys])
    np.testing.assert_allclose(b.mean, smoothed.mean(axis=0))
    np.testing.assert_allclose(b.upper - b.mean, smoothed.std(axis=0, ddof=1))
    assert not np.allclose(b.upper - b.mean, np.vstack(ys).std(axis=0, ddof=1))  # not the raw spread


@pytest.mark.parametrize(("mode", "scale"), [("samples", 32.0), ("epoch", None), ("wall", None)])
def test_the_band_follows_every_x_axis(mode: str, scale: float | None) -> None:
    m, ys = _model()
    m.set_x_mode(mode)
    (b,) = m.bands("loss", 5000).values()
    if scale is not None:
        np.testing.assert_allclose(b.x, STEPS * scale)
    elif mode == "epoch":
        assert b.x[0] == 0 and b.x[-1] == pytest.approx(2.0)  # step 990 ends epoch 2
    else:  # every run's wall time from its own start: the same 0 … 9.9 s
        assert b.x[0] == pytest.approx(0) and b.x[-1] == pytest.approx(9.9)
    assert b.mean[0] == pytest.approx(np.mean([y[0] for y in ys]))


def test_a_95_percent_interval_a_log_axis_and_drawing_each_run() -> None:
    m, ys = _model()
    m.set_band("ci95")
    (b,) = m.bands("loss", 5000).values()
    np.testing.assert_allclose(b.upper - b.mean, 3.182 * np.vstack(ys).std(axis=0, ddof=1) / 2)  # t(3)·s/√4
    m.set_log_x(True)
    (b,) = m.bands("loss", 20).values()
    assert len(b.x) == 20 and np.allclose(np.diff(np.log10(b.x)), np.diff(np.log10(b.x))[0])
    m.set_band("runs")
    assert m.groups() == [] and m.bands("loss", 100) == {}
    with pytest.raises(ValueError, match="a band is one of"):
        m.set_band("iqr")
