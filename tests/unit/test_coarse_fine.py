"""Coarse-to-fine 2-D surfaces: a preview first, refined rows after, and the same grid as without a preview."""

import numpy as np


def _setup():
    import torch
    from torch import nn

    from studio.core.landscape.directions import normalized_directions

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))
    center = {k: v.detach().clone() for k, v in model.named_parameters()}
    d1, d2 = normalized_directions(center, 2, seed=0)
    x, y = torch.randn(64, 4), torch.randint(0, 3, (64,))
    return model, center, d1, d2, x, y


def test_preview_then_rows_and_the_same_grid_as_without_a_preview():
    from studio.core.landscape import coarse_fine, surface

    model, center, d1, d2, x, y = _setup()
    xs = surface.default_grid(21)
    ys = np.linspace(-0.8, 0.8, 17)  # not square: rows are ys
    plain = surface.surface_2d(model, center, d1, d2, x, y, xs, ys)
    frames = []
    steps = []
    out = coarse_fine.surface_2d_coarse_to_fine(model, center, d1, d2, x, y, xs, ys, on_frame=frames.append,
                                                preview=5, frames=4, progress=lambda d, n: steps.append((d, n)))
    np.testing.assert_allclose(out["loss"], plain["loss"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["acc"], plain["acc"], atol=1e-6)
    assert [f["stage"] for f in frames] == ["preview"] + ["refine"] * 4
    first = frames[0]
    assert first["loss"].shape == (5, 5) and list(first["xs"]) == list(xs[[0, 5, 10, 15, 20]])
    np.testing.assert_allclose(first["loss"], plain["loss"][np.ix_([0, 4, 8, 12, 16], [0, 5, 10, 15, 20])],
                               rtol=1e-5, atol=1e-6)  # the preview is the full grid's own points
    assert [f["rows_done"] for f in frames[1:]] == [5, 10, 15, 17]
    half = frames[2]  # rows 0..9 computed, the rest still the upsampled preview
    np.testing.assert_allclose(half["loss"][:10], plain["loss"][:10], rtol=1e-5, atol=1e-6)
    assert half["loss"].shape == (17, 21) and np.isfinite(half["loss"]).all()
    done = [d / n for d, n in steps]
    assert done == sorted(done) and done[-1] == 1.0


def test_upsample_is_exact_for_a_bilinear_surface():
    from studio.core.landscape import coarse_fine

    xs_c, ys_c = np.linspace(-1, 1, 3), np.linspace(-2, 2, 5)
    f = lambda a, b: 1 + 2 * a - 3 * b + 0.5 * a * b  # noqa: E731
    coarse = f(*np.meshgrid(xs_c, ys_c))
    xs, ys = np.linspace(-1, 1, 9), np.linspace(-2, 2, 11)
    np.testing.assert_allclose(coarse_fine.upsample(xs_c, ys_c, coarse, xs, ys), f(*np.meshgrid(xs, ys)))


def test_preview_indices_keep_both_ends():
    from studio.core.landscape import coarse_fine

    assert list(coarse_fine.preview_indices(41, 11)) == list(range(0, 41, 4))
    assert list(coarse_fine.preview_indices(3, 11)) == [0, 1, 2]


def test_a_preview_on_fewer_samples_is_those_samples_grid_and_the_full_grid_stays_exact():
    from studio.core.landscape import coarse_fine, surface

    model, center, d1, d2, x, y = _setup()
    xs = ys = surface.default_grid(9)
    plain = surface.surface_2d(model, center, d1, d2, x, y, xs, ys)
    few = surface.surface_2d(model, center, d1, d2, x[:16], y[:16], xs, ys)
    frames = []
    out = coarse_fine.surface_2d_coarse_to_fine(model, center, d1, d2, x, y, xs, ys, on_frame=frames.append,
                                                preview=3, frames=2, preview_samples=16)
    first = frames[0]
    assert first["stage"] == "preview" and first["samples"] == 16
    np.testing.assert_allclose(first["loss"], few["loss"][np.ix_([0, 4, 8], [0, 4, 8])], rtol=1e-5, atol=1e-6)
    assert not np.allclose(first["loss"], plain["loss"][np.ix_([0, 4, 8], [0, 4, 8])])  # really fewer samples
    np.testing.assert_allclose(out["loss"], plain["loss"], rtol=1e-5, atol=1e-6)
