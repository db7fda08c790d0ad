"""2-D grids and 1-D lines: exact on a quadratic, fast (vmap) = sequential, centre = the checkpoint's loss."""

import numpy as np
import pytest

from studio.core.landscape import io
from studio.core.models import MODELS
from tests.unit.landscape_runs import SMALL, train_run


def test_grid_of_a_quadratic_loss_is_the_analytic_surface():
    """Least squares: L(w) = mean((Xw − y)²) is exactly quadratic in w, so L(w₀ + a·d₁ + b·d₂) is known."""
    import torch
    from torch import nn

    from studio.core.landscape.directions import normalized_directions, parameters_of
    from studio.core.landscape.surface import surface_2d
    from studio.core.maths.objectives import mse_sum

    gen = torch.Generator().manual_seed(0)
    n, dim = 64, 6
    x = torch.randn(n, dim, generator=gen)
    y = torch.randn(n, 1, generator=gen)
    torch.manual_seed(0)  # the weights, hence how curved the grid is, do not depend on earlier tests
    model = nn.Linear(dim, 1, bias=False)
    w0 = parameters_of(model)
    d1, d2 = normalized_directions(w0, 2, seed=1)
    xs, ys = np.linspace(-1, 1, 9), np.linspace(-2, 2, 7)
    X, Y = x.double().numpy(), y.double().numpy()[:, 0]
    r0, u, v = X @ w0["weight"].double().numpy()[0] - Y, X @ d1["weight"].double().numpy()[0], \
        X @ d2["weight"].double().numpy()[0]
    analytic = np.array([[np.mean((r0 + a * u + b * v) ** 2) for a in xs] for b in ys])
    for fast in (True, False):
        grid = surface_2d(model, w0, d1, d2, x, y, xs, ys, fast=fast, loss_fn=mse_sum, correct_fn=None)
        assert grid["loss"].shape == (len(ys), len(xs))
        np.testing.assert_allclose(grid["loss"], analytic, rtol=1e-5)
        assert np.isnan(grid["acc"]).all()
    assert analytic.max() > 2 * analytic.min()  # the surface is not flat: the test can fail


@pytest.mark.parametrize("kind", ["mlp", "mlp_bn", "cnn"])
def test_vmap_grid_equals_the_sequential_grid(kind):
    import torch

    from studio.core.landscape.directions import normalized_directions, parameters_of
    from studio.core.landscape.surface import evaluate_fast, evaluate_sequential, grid_coefficients
    from studio.core.models.builders import build_cnn, build_mlp

    torch.manual_seed(0)
    model = {"mlp": lambda: build_mlp((1, 8, 8), 5, widths=[32, 16]),
             "mlp_bn": lambda: build_mlp((1, 8, 8), 5, widths=[32, 16], batch_norm=True),
             "cnn": lambda: build_cnn((1, 8, 8), 5, filters=[4, 6, 3], dense=16)}[kind]()
    x, y = torch.randn(150, 1, 8, 8), torch.randint(0, 5, (150,))
    model.train()
    model(x)  # BatchNorm running statistics that differ from their initial values
    model.eval()
    w = parameters_of(model)
    # not ±1: with biases and BatchNorm included, a + b = −1 zeroes every scale and all logits tie
    xs = np.linspace(-0.9, 0.9, 7)
    coeffs = grid_coefficients(xs, xs)
    for include in (False, True):
        dirs = normalized_directions(w, 2, seed=2, include_bias_bn=include)
        ref_loss, ref_acc = evaluate_sequential(model, w, dirs, coeffs, x, y)
        for options in ({}, {"affine_first_layer": False}, {"chunk": 13, "data_batch": 64}):
            loss, acc = evaluate_fast(model, w, dirs, coeffs, x, y, **options)
            np.testing.assert_allclose(loss, ref_loss, atol=1e-5, rtol=0)
            np.testing.assert_array_equal(acc, ref_acc)
        assert np.ptp(ref_loss) > 0.05 and np.ptp(ref_acc) > 0  # the grid varies


@pytest.mark.parametrize("affine", [True, False])
def test_bf16_autocast_grid_is_close_to_the_fp32_grid(affine):
    """The GPU's default path (bf16 autocast) run on the CPU: same grid to bf16 precision, really in bf16."""
    import torch

    from studio.core.landscape.directions import normalized_directions, parameters_of
    from studio.core.landscape.surface import evaluate_fast, evaluate_sequential, grid_coefficients
    from studio.core.models.builders import build_mlp

    torch.manual_seed(0)
    model = build_mlp((1, 8, 8), 5, widths=[64, 32]).eval()
    x, y = torch.randn(300, 1, 8, 8), torch.randint(0, 5, (300,))
    w = parameters_of(model)
    dirs = normalized_directions(w, 2, seed=3)
    coeffs = grid_coefficients(np.linspace(-1, 1, 5), np.linspace(-1, 1, 5))
    ref, _ = evaluate_sequential(model, w, dirs, coeffs, x, y)
    loss, acc = evaluate_fast(model, w, dirs, coeffs, x, y, bf16=True, affine_first_layer=affine)
    assert np.isfinite(loss).all() and ((acc >= 0) & (acc <= 1)).all()
    np.testing.assert_allclose(loss, ref, rtol=5e-3)
    assert np.abs(loss - ref).max() > 1e-6  # it did compute in bf16, not silently in fp32
    assert np.ptp(ref) > 0.05


def test_interpolation_ends_are_the_two_weight_sets():
    import torch
    from torch import nn

    from studio.core.landscape.directions import parameters_of
    from studio.core.landscape.surface import interpolate_1d
    from studio.core.models.builders import build_mlp

    torch.manual_seed(0)
    a, b = build_mlp((4,), 3, widths=[8]), build_mlp((4,), 3, widths=[8])
    x, y = torch.randn(50, 4), torch.randint(0, 3, (50,))
    start, end = parameters_of(a), parameters_of(b)
    line = interpolate_1d(a, start, end, x, y, np.array([-0.5, 0.0, 0.5, 1.0, 1.5]))
    with torch.no_grad():
        loss_a = nn.functional.cross_entropy(a(x), y).item()
        loss_b = nn.functional.cross_entropy(b(x), y).item()
    assert line["loss"][1] == pytest.approx(loss_a, abs=1e-6)
    assert line["loss"][3] == pytest.approx(loss_b, abs=1e-6)
    assert abs(loss_a - loss_b) > 1e-3


@pytest.fixture(scope="module")
def bn_run(tmp_path_factory):
    """A small real run of an MLP with BatchNorm (3 epochs, a checkpoint each epoch)."""
    return train_run(tmp_path_factory.mktemp("home"), SMALL + ["model.batch_norm=true"])


def test_centre_of_the_grid_is_the_checkpoint_loss(bn_run):
    import torch
    from torch import nn

    from studio.engine.replay import RunData, final_checkpoint, load_checkpoint
    from studio.engine.tasks import landscape as compute

    result, path = compute.compute_landscape(bn_run, "2d", resolution=5, samples=300, split="train")
    # the checkpoint's loss on the same data, computed independently of the landscape code
    data = RunData(bn_run, "cpu")
    x, y = data.eval_data("train", 300, seed=0)
    state = load_checkpoint(final_checkpoint(bn_run).path)
    net = MODELS.build("mlp", input_shape=data.input_shape, num_classes=data.num_classes,
                       **data.config.model.params)
    net.load_state_dict(state["model"])
    with torch.no_grad():
        want = nn.functional.cross_entropy(net.eval()(x), y).item()
    assert result.center_loss() == pytest.approx(want, abs=1e-6)
    assert result.loss[2, 2] == result.center_loss() and result.loss.max() > want
    assert "running statistics of the final checkpoint" in result.meta["batch_norm"]
    saved = io.load(path)
    np.testing.assert_array_equal(saved.loss, result.loss)
    assert path.parent == bn_run / "landscapes"


def test_centre_on_the_whole_test_split_is_the_run_test_loss(bn_run):
    """The trainer's own evaluation (eval mode, full test split) reported test_loss at the end."""
    from studio.core.runs.store import RunStore
    from studio.engine.tasks import landscape as compute

    result, _ = compute.compute_landscape(bn_run, "2d", resolution=3, samples=0, split="test", save=False)
    summary = RunStore(bn_run.parents[1]).get(bn_run.name).summary
    assert result.center_loss() == pytest.approx(summary["test_loss"], rel=1e-5)


def test_one_d_and_trajectory_of_a_run(bn_run):
    from studio.engine.tasks import landscape as compute

    line, _ = compute.compute_landscape(bn_run, "1d", resolution=5, samples=200, save=False)
    assert set(line.values) == {"train/loss", "train/acc", "test/loss", "test/acc"}
    assert line.x[0] == -0.5 and line.x[-1] == 1.5
    assert line.values["train/loss"][1] > line.values["train/loss"][3]  # trained beats initial
    traj, _ = compute.compute_landscape(bn_run, "trajectory", resolution=6, samples=200, save=False)
    assert traj.path.shape == (4, 2)  # steps 0 and after epochs 1, 2, 3
    np.testing.assert_allclose(traj.path[-1], 0, atol=1e-9)  # the final weights at the origin
    assert traj.x.min() <= traj.path[:, 0].min() and traj.x.max() >= traj.path[:, 0].max()
    ev = traj.meta["explained_variance"]
    assert ev[0] >= ev[1] > 0 and sum(ev) <= 1 + 1e-9
