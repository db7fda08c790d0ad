"""Curvature from Hessian-vector products against the full Hessian of a tiny network."""

import math

import pytest


@pytest.fixture(scope="module")
def tiny():
    """A 3-6-3 tanh network trained a little on 64 points, its loss function and its full Hessian."""
    import torch
    from torch import nn
    from torch.func import functional_call

    from studio.core.landscape import curvature
    from studio.core.landscape.directions import flatten, parameters_of, unflatten

    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(3, 6), nn.Tanh(), nn.Linear(6, 3))
    x, y = torch.randn(64, 3), torch.randint(0, 3, (64,))
    opt = torch.optim.Adam(net.parameters(), 0.05)
    for _ in range(100):
        opt.zero_grad()
        nn.functional.cross_entropy(net(x), y).backward()
        opt.step()
    params = parameters_of(net)

    def loss_of(vector):
        return nn.functional.cross_entropy(functional_call(net, unflatten(vector, params), (x,)), y)

    hessian = torch.autograd.functional.hessian(loss_of, flatten(params)).double()
    return curvature.LossFunction(net, params, x, y, batch_size=40), hessian  # two batches: sums are checked


def test_hessian_vector_products_match_the_full_hessian(tiny):
    import torch

    loss, hessian = tiny
    v = torch.randn(loss.dim, generator=torch.Generator().manual_seed(1))
    torch.testing.assert_close(loss.matvec(v).double(), hessian @ v.double(), rtol=1e-4, atol=1e-5)


def test_top_eigenvalues_match_eigvalsh_within_one_percent(tiny):
    import torch

    from studio.core.landscape import curvature

    loss, hessian = tiny
    exact = torch.linalg.eigvalsh(hessian).flip(0)  # largest first
    assert exact[0] > abs(exact[-1])  # near a minimum: the dominant eigenvalue is the top one
    top3 = curvature.lanczos(loss.matvec, loss.dim, k=3)
    for got, want in zip(top3, exact[:3].tolist(), strict=True):
        assert got == pytest.approx(want, rel=0.01)
    power = curvature.power_iteration(loss.matvec, loss.dim, k=1)
    assert power[0] == pytest.approx(float(exact[0]), rel=0.01)


def test_hutchinson_trace_within_five_percent(tiny):
    from studio.core.landscape import curvature

    loss, hessian = tiny
    trace, stderr = curvature.hutchinson_trace(loss.matvec, loss.dim, samples=1000, matmat=loss.matmat, block=250)
    exact = float(hessian.trace())
    assert trace == pytest.approx(exact, rel=0.05)
    assert 0 < stderr < 0.02 * exact  # the margin is several standard errors, not luck
    few, _ = curvature.hutchinson_trace(loss.matvec, loss.dim, samples=3, seed=4)  # one probe at a time
    assert few != pytest.approx(trace, rel=1e-6)


def test_power_iteration_finds_the_top_eigenvalue_when_a_negative_one_dominates():
    import torch

    from studio.core.landscape import curvature

    q, _ = torch.linalg.qr(torch.randn(6, 6, generator=torch.Generator().manual_seed(0), dtype=torch.float64))
    a = q @ torch.diag(torch.tensor([-5.0, 2.0, 1.0, 0.5, -1.0, 0.1], dtype=torch.float64)) @ q.T
    assert curvature.power_iteration(lambda v: a @ v, 6, k=1, shift=False)[0] == pytest.approx(-5.0, rel=1e-3)
    assert curvature.power_iteration(lambda v: a @ v, 6, k=1)[0] == pytest.approx(2.0, rel=1e-3)
    assert curvature.lanczos(lambda v: a @ v, 6, k=2) == pytest.approx([2.0, 1.0], rel=1e-6)


def test_eps_sharpness_of_a_quadratic_reaches_the_box_corner():
    """f(θ) = (1/d) Σ s_i² θ_i² at θ = 0: the box is |z_i| ≤ ε and its maximum ε²·Σs_i²/d sits at any corner."""
    import torch
    from torch import nn

    from studio.core.landscape import curvature
    from studio.core.landscape.directions import parameters_of
    from studio.core.maths.objectives import mse_sum

    d, eps = 8, 0.01
    scales = torch.linspace(0.5, 3.0, d)
    model = nn.Linear(d, 1, bias=False)
    with torch.no_grad():
        model.weight.zero_()
    x, y = torch.diag(scales), torch.zeros(d, 1)
    loss = curvature.LossFunction(model, parameters_of(model), x, y, mse_sum)
    result = curvature.eps_sharpness(loss, eps=eps, steps=10)
    best = eps**2 * float((scales**2).sum()) / d
    assert result["loss"] == 0.0
    assert result["eps_sharpness"] == pytest.approx(100 * best, rel=1e-4)
    assert math.isclose(result["max_loss"], best, rel_tol=1e-4)
