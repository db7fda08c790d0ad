"""PCA of checkpoint differences: a path that lies in a plane is recovered exactly."""

import numpy as np
import pytest

from studio.core.errors import DataError


def _plane_path():
    import torch

    gen = torch.Generator().manual_seed(0)
    final = {"w": torch.randn(5, 4, generator=gen), "b": torch.randn(5, generator=gen)}
    u, v = torch.linalg.qr(torch.randn(20, 2, generator=gen))[0].T  # orthonormal in the weight matrix space
    coords = np.array([[3.0, 2.0], [1.5, 2.5], [0.5, 0.8], [-0.2, 0.3], [0.0, 0.0]])
    ckpts = []
    for a, b in coords:
        w = final["w"] + (a * u + b * v).reshape(5, 4)
        ckpts.append({"w": w, "b": final["b"] + 0.1 * a})  # biases move too, but are ignored by default
    return final, ckpts, coords


def test_path_in_a_plane_is_recovered_up_to_rotation():
    import torch

    from studio.core.landscape.directions import flatten
    from studio.core.landscape.trajectory import pca_plane

    final, ckpts, coords = _plane_path()
    plane = pca_plane(ckpts, final)
    assert plane.centered and plane.path.shape == (5, 2)
    np.testing.assert_allclose(plane.path[-1], 0, atol=1e-9)
    assert plane.explained_variance.sum() == pytest.approx(1.0, abs=1e-9)  # all variance in two directions
    assert plane.explained_variance[0] >= plane.explained_variance[1] > 0.01
    # an isometry of the true coordinates: every pairwise distance is kept
    dist = lambda p: np.linalg.norm(p[:, None] - p[None], axis=-1)
    np.testing.assert_allclose(dist(plane.path), dist(coords), atol=1e-5)
    d1, d2 = plane.directions
    assert torch.count_nonzero(d1["b"]) == 0  # bias ignored by default
    n1, n2 = flatten(d1), flatten(d2)
    assert float(n1 @ n1) == pytest.approx(1, abs=1e-5) and float(n1 @ n2) == pytest.approx(0, abs=1e-5)


def test_including_biases_changes_the_plane():
    import torch

    from studio.core.landscape.trajectory import pca_plane

    final, ckpts, _ = _plane_path()
    with_bias = pca_plane(ckpts, final, include_bias_bn=True)
    assert torch.count_nonzero(with_bias.directions[0]["b"]) > 0


def test_too_few_checkpoints_is_a_clear_error():
    from studio.core.landscape.trajectory import pca_plane

    final, ckpts, _ = _plane_path()
    with pytest.raises(DataError, match="checkpoint_every"):
        pca_plane([ckpts[0], final], final)


def test_range_holds_the_path_and_the_origin():
    from studio.core.landscape.trajectory import path_range

    path = np.array([[2.0, 1.0], [1.0, 0.5], [0.0, 0.0]])
    (x0, x1), (y0, y1) = path_range(path)
    assert x0 < 0 < 2 < x1 and y0 < 0 < 1 < y1
