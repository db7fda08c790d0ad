"""The level-of-detail pyramid (core/maths/decimate.py): decimating through it keeps exactly the points that
decimating the full data keeps, at every zoom, for curves that grow."""

import numpy as np
import pytest

from studio.core.maths.decimate import Pyramid, minmax_indices, pyramid_indices


def curve(n: int, seed: int, duplicates: bool = False) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    steps = rng.integers(0 if duplicates else 1, 4, size=n)
    x = np.cumsum(steps).astype(float)  # uneven spacing; with duplicates: a step logged twice
    y = np.cumsum(rng.normal(size=n)).round(1)  # ties inside buckets: the first extreme must win
    y[rng.integers(0, n, size=5)] = [1e6, -1e6, 3e5, -3e5, 0.0]  # one-sample spikes
    return x, y


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("n", [100, 20_000, 100_003])
def test_the_pyramid_picks_the_full_decimation_s_points(n, seed):
    x, y = curve(n, seed, duplicates=seed % 2 == 1)
    pyramid = Pyramid().extend(y)
    rng = np.random.default_rng(seed)
    for columns in (64, 300, 1500):
        ranges = [None, (x[0], x[-1])] + [tuple(sorted(rng.uniform(x[0] - 5, x[-1] + 5, 2))) for _ in range(5)]
        for x_range in ranges:
            want = minmax_indices(x, y, columns, x_range)
            assert np.array_equal(pyramid_indices(x, y, columns, x_range, pyramid), want), (columns, x_range)


def test_a_growing_curve_extends_its_pyramid_as_if_built_at_once():
    x, y = curve(50_000, 7)
    grown = Pyramid()
    for n in (10, 1_000, 1_001, 17_777, 50_000):
        grown = grown.extend(y[:n])
        whole = Pyramid().extend(y[:n])
        assert len(grown.levels) == len(whole.levels)
        for (a, b), (c, d) in zip(grown.levels, whole.levels, strict=True):
            assert np.array_equal(a, c) and np.array_equal(b, d)
        assert np.array_equal(pyramid_indices(x[:n], y[:n], 100, None, grown), minmax_indices(x[:n], y[:n], 100))


def test_non_finite_values_fall_back_to_every_point():
    x, y = curve(20_000, 3)
    y[5_000] = np.nan
    pyramid = Pyramid().extend(y)
    assert not pyramid.usable
    assert np.array_equal(pyramid_indices(x, y, 100, None, pyramid), minmax_indices(x, y, 100))
