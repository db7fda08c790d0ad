"""Min/max decimation (core/maths/decimate.py): what a drawn curve keeps of the full one."""

import numpy as np
import pytest

from studio.core.maths.decimate import minmax_decimate, minmax_indices


def columns_of(x: np.ndarray, lo: float, hi: float, columns: int) -> np.ndarray:
    return np.clip(np.floor((x - lo) / (hi - lo) * columns), -1, columns).astype(np.int64)


def per_column(x, y, lo, hi, columns, reduce):
    col = columns_of(x, lo, hi, columns)
    return {int(c): reduce(y[col == c]) for c in np.unique(col) if np.isfinite(y[col == c]).any()}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_column_keeps_the_extremes_of_the_original(seed):
    rng = np.random.default_rng(seed)
    x = np.cumsum(rng.integers(1, 4, size=50_000)).astype(float)  # uneven spacing
    y = np.cumsum(rng.normal(size=x.size))
    xs, ys = minmax_decimate(x, y, 300)
    assert len(xs) <= 4 * 300 + 2 < len(x)
    assert np.all(np.diff(xs) >= 0) and np.isin(xs, x).all()
    lo, hi = x[0], x[-1]
    assert per_column(xs, ys, lo, hi, 300, np.nanmin) == per_column(x, y, lo, hi, 300, np.nanmin)
    assert per_column(xs, ys, lo, hi, 300, np.nanmax) == per_column(x, y, lo, hi, 300, np.nanmax)
    assert (xs[0], ys[0], xs[-1], ys[-1]) == (x[0], y[0], x[-1], y[-1])  # the ends stay


def test_a_spike_of_one_sample_survives():
    x = np.arange(100_000, dtype=float)
    y = np.zeros_like(x)
    spikes = [17, 4_242, 55_555, 99_998]
    y[spikes] = [1e6, -1e6, 3.0, -2.0]
    xs, ys = minmax_decimate(x, y, 200)
    assert len(xs) <= 4 * 200 + 2
    for at in spikes:
        assert at in xs and ys[xs == at][0] == y[at]
    subsampled = y[::125]  # plain subsampling to the same budget (800 points) loses them
    assert not np.isin(spikes, np.arange(0, 100_000, 125)).any() and not subsampled.any()


def test_nan_is_skipped_for_the_extremes_and_an_all_nan_column_still_draws():
    x = np.arange(10_000, dtype=float)
    y = np.sin(x / 100)
    y[::7] = np.nan
    y[5_000:5_200] = np.nan  # whole columns of NaN
    xs, ys = minmax_decimate(x, y, 100)
    assert len(xs) <= 4 * 100 + 2
    assert per_column(xs, ys, 0, 9_999, 100, np.nanmin) == per_column(x, y, 0, 9_999, 100, np.nanmin)
    assert per_column(xs, ys, 0, 9_999, 100, np.nanmax) == per_column(x, y, 0, 9_999, 100, np.nanmax)
    assert 5_000 in xs and np.isnan(ys[xs == 5_000][0])  # the gap stays a gap in the line


def test_fewer_points_than_the_budget_come_back_unchanged_as_copies():
    x = np.array([0.0, 1.0, 5.0, 6.0])
    y = np.array([3.0, np.nan, -1.0, 2.0])
    xs, ys = minmax_decimate(x, y, 1)
    assert np.array_equal(xs, x) and np.array_equal(ys, y, equal_nan=True)
    xs[0] = 99.0
    assert x[0] == 0.0
    empty = minmax_decimate(np.array([]), np.array([]), 10)
    assert len(empty[0]) == len(empty[1]) == 0
    with pytest.raises(ValueError, match="differ in length"):
        minmax_decimate(x, y[:2], 10)


def test_a_zoom_keeps_one_point_each_side_of_the_view():
    x = np.arange(0, 100_000, 2, dtype=float)
    y = np.cos(x / 50)
    lo, hi = 20_001.0, 30_001.0
    xs, ys = minmax_decimate(x, y, 50, x_range=(lo, hi))
    inside = (xs >= lo) & (xs <= hi)
    assert xs[0] == 20_000.0 and xs[-1] == 30_002.0 and inside[1:-1].all()  # the nearest neighbours outside
    assert len(xs) <= 4 * 50 + 2
    x_in, y_in = x[(x >= lo) & (x <= hi)], y[(x >= lo) & (x <= hi)]
    keep_in = xs[inside], ys[inside]
    assert per_column(*keep_in, lo, hi, 50, np.nanmin) == per_column(x_in, y_in, lo, hi, 50, np.nanmin)
    assert per_column(*keep_in, lo, hi, 50, np.nanmax) == per_column(x_in, y_in, lo, hi, 50, np.nanmax)
    few = minmax_decimate(x, y, 5_000, x_range=(lo, hi))  # fewer points in view than the budget: all of them
    assert np.array_equal(few[0], x[(x >= lo - 2) & (x <= hi + 1)])


def test_indices_pick_the_same_points():
    rng = np.random.default_rng(5)
    x = np.sort(rng.uniform(0, 1_000, 20_000))
    y = rng.normal(size=x.size)
    keep = minmax_indices(x, y, 64)
    xs, ys = minmax_decimate(x, y, 64)
    assert np.all(np.diff(keep) > 0) and np.array_equal(x[keep], xs) and np.array_equal(y[keep], ys)
