"""core/maths/smoothing.py: the vectorised EMA gives exactly the numbers of the Python loop it replaced."""

import numpy as np
import pytest

from studio.core.maths import smoothing
from studio.core.maths.smoothing import LOOP_BELOW, ema, smooth


@pytest.fixture(params=["loop", "lfilter"])
def path(request, monkeypatch):
    """Both ways of running the recurrence: Python floats, and scipy's lfilter once scipy.signal is loaded."""
    monkeypatch.setattr(smoothing, "_lfilter_loaded", lambda: request.param == "lfilter")
    return request.param


def old_loop(values: np.ndarray, weight: float) -> np.ndarray:
    """The loop CurvesView ran on the GUI thread before (gui/plots/curves.py)."""
    if weight <= 0 or len(values) == 0:
        return values
    out = np.empty_like(values, dtype=float)
    acc, norm = 0.0, 0.0
    for i, v in enumerate(values):
        acc = acc * weight + (1 - weight) * v
        norm = norm * weight + (1 - weight)
        out[i] = acc / norm
    return out


@pytest.mark.parametrize("weight", [0.0, 0.1, 0.6, 0.9, 0.99, 0.999])
@pytest.mark.parametrize("n", [1, 7, LOOP_BELOW - 1, LOOP_BELOW, 20_000])
def test_identical_to_the_loop(weight, n, path):
    values = np.random.default_rng(n).normal(size=n) * 3 + np.linspace(5, 0, n)
    assert np.array_equal(ema(values, weight), old_loop(values, weight))


def test_debiased_like_tensorboard():
    assert np.allclose(ema(np.array([2.0, 2.0, 2.0]), 0.9), [2.0, 2.0, 2.0])  # no pull towards 0 at the start


def test_non_finite_values_behave_as_in_the_loop(path):
    values = np.random.default_rng(1).normal(size=3 * LOOP_BELOW)
    values[LOOP_BELOW + 5] = np.inf
    values[2 * LOOP_BELOW] = np.nan
    assert np.array_equal(ema(values, 0.9), old_loop(values, 0.9), equal_nan=True)


def test_a_growing_curve_continues_where_it_stopped(path):
    values = np.random.default_rng(2).normal(size=30_000)
    first = smooth(values[:LOOP_BELOW + 100], 0.95)
    more = smooth(values[:25_000], 0.95, first)
    assert np.array_equal(more.values, old_loop(values[:25_000], 0.95))
    assert np.array_equal(smooth(values, 0.95, more).values, old_loop(values, 0.95))
    assert np.array_equal(smooth(values, 0.5, more).values, old_loop(values, 0.5))  # another weight: from scratch
