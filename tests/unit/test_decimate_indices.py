"""minmax_indices: the points minmax_decimate keeps, as indices (the curves decimate a log axis in log10 units and
take the original x of the kept points)."""

import numpy as np

from studio.core.maths.decimate import minmax_decimate, minmax_indices


def test_indices_pick_the_decimated_points():
    x = np.arange(1, 50_001, dtype=float)
    y = np.random.default_rng(3).normal(size=len(x))
    for x_range in (None, (10_000.0, 12_000.0)):
        idx = minmax_indices(x, y, 300, x_range)
        want_x, want_y = minmax_decimate(x, y, 300, x_range)
        assert np.array_equal(x[idx], want_x) and np.array_equal(y[idx], want_y)
        assert np.all(np.diff(idx) > 0)
    assert np.array_equal(minmax_indices(x[:10], y[:10], 300), np.arange(10))  # few points: all of them
    assert len(minmax_indices(np.empty(0), np.empty(0), 10)) == 0
