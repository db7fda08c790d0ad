"""Seed groups drawn as a mean and a band: the band maths against numpy on a common grid, runs of different
lengths, the 95 % interval's Student t, and the spread of single numbers."""

from __future__ import annotations

import numpy as np
import pytest

from studio.core.maths.bands import CI95, STD, band, grid_of, on_grid, spread, t975


def test_the_band_is_numpys_mean_and_sample_std_where_the_runs_share_their_steps() -> None:
    rng = np.random.default_rng(0)
    x = np.arange(0, 200, 10, dtype=float)
    ys = [np.exp(-x / 50) + rng.normal(0, 0.05, len(x)) for _ in range(5)]
    b = band([(x, y) for y in ys], grid_of([x] * 5, 1000), STD)
    stack = np.vstack(ys)
    assert np.array_equal(b.x, x) and (b.n == 5).all()
    np.testing.assert_allclose(b.mean, stack.mean(axis=0))
    np.testing.assert_allclose(b.upper - b.mean, stack.std(axis=0, ddof=1))
    np.testing.assert_allclose(b.mean - b.lower, stack.std(axis=0, ddof=1))
    ci = band([(x, y) for y in ys], x, CI95)
    np.testing.assert_allclose(ci.upper - ci.mean, 2.776 * stack.std(axis=0, ddof=1) / np.sqrt(5))  # t(4) = 2.776


def test_a_shorter_run_counts_only_where_it_has_values() -> None:
    long, short = (np.arange(11.0), np.arange(11.0)), (np.arange(6.0), np.arange(6.0) + 2)
    b = band([long, short], np.arange(11.0))
    assert list(b.n) == [2] * 6 + [1] * 5
    np.testing.assert_allclose(b.mean[:6], np.arange(6.0) + 1)
    np.testing.assert_allclose(b.mean[6:], np.arange(6.0, 11.0))  # the long run alone: its own values, no band
    np.testing.assert_allclose(b.upper[6:], b.lower[6:])


def test_runs_logged_at_other_steps_are_interpolated_onto_the_grid() -> None:
    a = (np.array([0.0, 10.0]), np.array([0.0, 10.0]))
    b = (np.array([0.0, 5.0, 10.0]), np.array([2.0, 7.0, 12.0]))
    grid = grid_of([a[0], b[0]], 100)
    assert list(grid) == [0.0, 5.0, 10.0]  # the union of their steps
    out = band([a, b], grid)
    np.testing.assert_allclose(out.mean, [1.0, 6.0, 11.0])
    assert len(grid_of([np.arange(5000.0)], 800)) == 800  # too many: evenly spaced
    assert np.isnan(on_grid(np.array([1.0, 2.0]), np.array([3.0, 4.0]), np.array([0.0]))).all()


def test_spread_of_final_numbers_and_its_words() -> None:
    s = spread([0.90, 0.92, None, float("nan"), 0.94])
    assert s is not None and s.n == 3 and s.mean == pytest.approx(0.92)
    assert s.std == pytest.approx(np.std([0.90, 0.92, 0.94], ddof=1))
    assert s.ci95 == pytest.approx(t975(2) * s.std / np.sqrt(3))
    assert s.text() == "0.9200 ± 0.0200 (n=3)"
    assert spread([None]) is None and spread([0.5]).text() == "0.5000"  # type: ignore[union-attr]
    assert t975(0) == float("inf") and t975(100) == 1.96


def test_an_unknown_band_is_refused() -> None:
    with pytest.raises(ValueError, match="std"):
        band([(np.arange(3.0), np.arange(3.0))] * 2, np.arange(3.0), "iqr")
