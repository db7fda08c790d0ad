"""The power-law fit (core/maths/scaling_fit.py) on curves with a known answer."""

from __future__ import annotations

import numpy as np
import pytest

from studio.core.errors import DataError
from studio.core.maths.scaling_fit import fit_power_law, power_law


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(("a", "b", "c"), [(5.0, 0.4, 0.3), (40.0, 0.9, 1.2), (10.0, 0.25, 0.5)])
def test_recovers_the_exponent_within_ten_percent_under_noise(seed: int, a: float, b: float, c: float):
    rng = np.random.default_rng(seed)
    x = np.geomspace(20, 20_000, 40)
    y = power_law(x, a, b, c) * (1 + 0.02 * rng.standard_normal(len(x)))  # 2 % multiplicative noise
    fit = fit_power_law(x, y)
    assert fit.b == pytest.approx(b, rel=0.10)
    assert fit.r2 > 0.95
    assert fit.points == 40


def test_band_brackets_the_prediction_and_widens_beyond_the_data():
    rng = np.random.default_rng(0)
    x = np.geomspace(10, 1000, 25)
    y = power_law(x, 3.0, 0.5, 0.2) + 0.005 * rng.standard_normal(len(x))
    fit = fit_power_law(x, y)
    inside, beyond = np.array([500.0]), np.array([20_000.0])
    lo_in, hi_in = fit.band(inside)
    lo_out, hi_out = fit.band(beyond)
    assert lo_in[0] <= fit.predict(inside)[0] <= hi_in[0]
    assert (hi_out - lo_out)[0] > (hi_in - lo_in)[0]
    p = fit.summary(extrapolate=4)["predicted"]
    assert p["x"] == pytest.approx(4000)
    assert p["low"] <= p["loss"] <= p["high"]
    assert p["loss"] == pytest.approx(power_law(4000.0, 3.0, 0.5, 0.2), abs=0.02)


def test_exact_curve_gives_r2_one_and_the_parameters():
    x = np.arange(1, 50, dtype=float)
    fit = fit_power_law(x, power_law(x, 2.0, 0.7, 0.1))
    assert (fit.a, fit.b, fit.c) == pytest.approx((2.0, 0.7, 0.1), rel=1e-3)
    assert fit.r2 == pytest.approx(1.0)


def test_too_few_points_is_a_clear_error():
    with pytest.raises(DataError, match="at least 4 points"):
        fit_power_law([1, 2, 3, 0, -1], [1.0, 0.8, 0.7, 0.6, 0.5])  # x ≤ 0 is left out


@pytest.mark.parametrize("seed", range(6))
def test_band_does_not_plunge_inside_the_data_range(seed: int):
    """Issue 22: parameter draws let the band's lower edge fall to half the fitted loss at the first data point
    (0.44 against 0.91 with noise 0.01); where the data are, the band is as narrow as their noise."""
    rng = np.random.default_rng(seed)
    x = np.arange(1, 11) * 100.0
    y = 2.0 * x ** -0.3 + 0.4 + rng.normal(0, 0.01, len(x))
    fit = fit_power_law(x, y)
    inside = np.geomspace(fit.x_min, fit.x_max, 30)
    low, high = fit.band(inside)
    mid = fit.predict(inside)
    assert np.all(mid - low < 0.05) and np.all(high - mid < 0.05), (mid - low).max()
    assert np.all(low > 0) and np.all(low <= mid) and np.all(mid <= high)  # a loss band a log axis can draw
    beyond_low, beyond_high = fit.band(fit.x_max * 4)
    assert beyond_high[0] - beyond_low[0] > (high - low)[-1]  # wider where the data stop
