"""core/maths/smoothing.py: the vectorised EMA gives the numbers of the Python loop it replaced (to rounding)."""

import numpy as np
import pytest

from studio.core.maths.smoothing import LOOP_BELOW, ema, smooth

CLOSE = 1e-11  # relative (to the value, or 1 near 0): the loop's own rounding over 100k points is of this order


def old_loop(values: np.ndarray, weight: float) -> np.ndarray:
    """The loop CurvesView ran on the GUI thread before (gui/plots/curves.py)."""
    if weight <= 0 or len(values) == 0:
        return values
    out = np.empty_like(values, dtype=float)
    acc, norm = 0.0, 0.0
    with np.errstate(invalid="ignore", over="ignore"):
        for i, v in enumerate(values):
            acc = acc * weight + (1 - weight) * v
            norm = norm * weight + (1 - weight)
            out[i] = acc / norm
    return out


def assert_same(got: np.ndarray, want: np.ndarray) -> None:
    """Equal where the loop is not finite (NaN, ±inf in the same places), within ``CLOSE`` elsewhere."""
    assert got.shape == want.shape
    finite = np.isfinite(want)
    assert np.array_equal(got[~finite], want[~finite], equal_nan=True)
    assert np.all(np.abs(got[finite] - want[finite]) <= CLOSE * np.maximum(np.abs(want[finite]), 1.0))


@pytest.mark.parametrize("weight", [0.0, 0.1, 0.6, 0.9, 0.99, 0.999, 0.9999])
@pytest.mark.parametrize("n", [1, 7, LOOP_BELOW - 1, LOOP_BELOW, LOOP_BELOW + 1, 20_000, 100_003])
def test_the_loop_s_numbers(weight, n):
    values = np.random.default_rng(n).normal(size=n) * 3 + np.linspace(5, 0, n)
    assert_same(ema(values, weight), old_loop(values, weight))


def test_short_curves_are_the_loop_exactly():
    values = np.random.default_rng(3).normal(size=LOOP_BELOW - 1)
    assert np.array_equal(ema(values, 0.9), old_loop(values, 0.9))


def test_debiased_like_tensorboard():
    assert np.allclose(ema(np.array([2.0, 2.0, 2.0]), 0.9), [2.0, 2.0, 2.0])  # no pull towards 0 at the start
    assert np.allclose(ema(np.full(50_000, 2.0), 0.999), 2.0)


@pytest.mark.parametrize("first, later", [(np.inf, np.nan), (-np.inf, np.inf), (np.nan, 1.0), (np.inf, -1.0)])
def test_non_finite_values_behave_as_in_the_loop(first, later):
    values = np.random.default_rng(1).normal(size=3 * LOOP_BELOW + 1000)
    values[LOOP_BELOW + 5] = first
    values[2 * LOOP_BELOW + 700] = later
    assert_same(ema(values, 0.9), old_loop(values, 0.9))


def test_a_growing_curve_continues_where_it_stopped():
    values = np.random.default_rng(2).normal(size=30_000)
    first = smooth(values[:LOOP_BELOW + 100], 0.95)
    more = smooth(values[:25_000], 0.95, first)
    assert_same(more.values, old_loop(values[:25_000], 0.95))
    assert np.array_equal(more.values[:len(first.values)], first.values)  # the smoothed prefix is kept as it was
    assert_same(smooth(values, 0.95, more).values, old_loop(values, 0.95))
    assert_same(smooth(values, 0.5, more).values, old_loop(values, 0.5))  # another weight: from scratch
