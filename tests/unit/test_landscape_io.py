"""Landscape results round-trip through .npz with their metadata."""

import numpy as np
import pytest

from studio.core.errors import DataError
from studio.core.landscape import io


def test_round_trip_keeps_arrays_path_and_metadata(tmp_path):
    xs = np.linspace(-1, 1, 5)
    loss = np.arange(25.0).reshape(5, 5)
    result = io.Landscape("trajectory", xs, xs * 2, {"train/loss": loss, "train/acc": loss / 100},
                          np.array([[1.0, 2.0], [0.0, 0.0]]), {"run_id": "r1", "explained_variance": [0.7, 0.2],
                                                              "batch_norm": "no BatchNorm in the model"})
    path = io.save(result, tmp_path)
    assert path.parent == tmp_path / "landscapes" and path.suffix == ".npz"
    back = io.load(path)
    assert back.kind == "trajectory" and back.meta == result.meta
    np.testing.assert_array_equal(back.values["train/loss"], loss)
    np.testing.assert_array_equal(back.path, result.path)
    np.testing.assert_array_equal(back.y, xs * 2)
    assert back.center_loss() == 12.0 and back.summary()["min_loss"] == 0.0
    assert io.list_results(tmp_path) == [path]


def test_one_d_centre_is_alpha_one(tmp_path):
    alphas = np.linspace(-0.5, 1.5, 5)
    result = io.Landscape("1d", alphas, None, {"train/loss": alphas**2 + 1})
    back = io.load(io.save(result, tmp_path))
    assert back.y is None and back.center_loss() == pytest.approx(2.0)


def test_foreign_files_are_refused(tmp_path):
    other = tmp_path / "other.npz"
    np.savez(other, a=np.zeros(3))
    with pytest.raises(DataError, match="not a Studio landscape"):
        io.load(other)
    with pytest.raises(DataError, match="cannot read"):
        io.load(tmp_path / "missing.npz")
