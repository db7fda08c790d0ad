"""Every optimizer in the registry against a hand-written reference, plus the properties the course teaches:
the two momentum forms, Newton's one step, the GD stability limit, LAMB/LARS trust ratios, Lookahead's EMA."""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING

import pytest

from studio.core.errors import ConfigError
from studio.core.optim import OPTIMIZERS

if TYPE_CHECKING:
    import torch


@functools.cache
def problem() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(A, b, w0): the quadratic F(w) = ½wᵀAw − bᵀw that every reference runs on, and where its weights start, in
    double precision (built on first use, so that collecting these tests does not import torch)."""
    import torch

    f64 = torch.float64
    return (torch.tensor([[3.0, 0.5, 0.0], [0.5, 2.0, 0.3], [0.0, 0.3, 1.0]], dtype=f64),
            torch.tensor([1.0, -2.0, 0.5], dtype=f64), torch.tensor([1.0, -1.0, 2.0], dtype=f64))


@pytest.fixture(autouse=True)
def double_precision():
    """The references are exact formulas: compare in double precision (restored after each test)."""
    import torch

    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    yield
    torch.set_default_dtype(old)


def quadratic(w: torch.Tensor) -> torch.Tensor:
    """F(w) = ½wᵀAw − bᵀw, gradient Aw − b, Hessian A."""
    A, B, _ = problem()
    return 0.5 * w @ A @ w - B @ w


def grad(w: torch.Tensor) -> torch.Tensor:
    A, B, _ = problem()
    return A @ w - B


def build(name: str, params, **values):
    return OPTIMIZERS.build(name, params=params, **OPTIMIZERS.resolve(name, values, "optimizer"))


def run(name: str, steps: int = 3, loss=quadratic, w0: torch.Tensor | None = None, **values) -> list[torch.Tensor]:
    """The weights after each of ``steps`` optimizer steps on ``loss`` (from ``problem()``'s w0 by default)."""
    w = (problem()[2] if w0 is None else w0).clone().requires_grad_(True)
    opt = build(name, [w], **values)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        loss(w).backward()
        opt.step((lambda: loss(w)) if getattr(opt, "requires_closure", False) else None)
        out.append(w.detach().clone())
    return out


# --- hand-written references: (w, steps, settings) → weights after each step --------------------------
def ref_sgd(lr, momentum=0.0, nesterov=False, weight_decay=0.0, inside=False, steps=3):
    import torch

    W0 = problem()[2]
    w, v, out = W0.clone(), torch.zeros(3), []
    for _ in range(steps):
        g = grad(w) + weight_decay * w
        if inside:
            v = momentum * v + lr * g
            w = w - v
        else:
            v = momentum * v + g
            w = w - lr * (g + momentum * v if nesterov else v)
        out.append(w)
    return out


def ref_adagrad(lr, eps=1e-10, initial_accumulator=0.0, weight_decay=0.0):
    import torch

    W0 = problem()[2]
    w, s, out = W0.clone(), torch.full((3,), initial_accumulator), []
    for _ in range(3):
        g = grad(w) + weight_decay * w
        s = s + g * g
        w = w - lr * g / (s.sqrt() + eps)
        out.append(w)
    return out


def ref_rmsprop(lr, alpha=0.99, eps=1e-8, momentum=0.0, centered=False, weight_decay=0.0):
    import torch

    W0 = problem()[2]
    w, v, gbar, buf, out = W0.clone(), torch.zeros(3), torch.zeros(3), torch.zeros(3), []
    for _ in range(3):
        g = grad(w) + weight_decay * w
        v = alpha * v + (1 - alpha) * g * g
        gbar = alpha * gbar + (1 - alpha) * g
        denom = ((v - gbar * gbar) if centered else v).sqrt() + eps
        if momentum:
            buf = momentum * buf + g / denom
            w = w - lr * buf
        else:
            w = w - lr * g / denom
        out.append(w)
    return out


def ref_adam(lr, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.0, decoupled=False, amsgrad=False):
    import torch

    W0 = problem()[2]
    w, m, v, vmax, out = W0.clone(), torch.zeros(3), torch.zeros(3), torch.zeros(3), []
    for t in range(1, 4):
        g = grad(w) + (0.0 if decoupled else weight_decay) * w
        if decoupled:  # AdamW: w ← w − ηλw, apart from the gradient
            w = w * (1 - lr * weight_decay)
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        vmax = torch.maximum(vmax, v)
        v_used = vmax if amsgrad else v
        w = w - lr * (m / (1 - beta1**t)) / ((v_used / (1 - beta2**t)).sqrt() + eps)
        out.append(w)
    return out


def ref_nadam(lr, beta1=0.9, beta2=0.999, eps=1e-8, momentum_decay=4e-3, weight_decay=0.0):
    import torch

    W0 = problem()[2]
    w, m, v, mu_product, out = W0.clone(), torch.zeros(3), torch.zeros(3), 1.0, []
    for t in range(1, 4):
        g = grad(w) + weight_decay * w
        mu = beta1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))
        mu_next = beta1 * (1 - 0.5 * 0.96 ** ((t + 1) * momentum_decay))
        mu_product *= mu
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        denom = (v / (1 - beta2**t)).sqrt() + eps
        w = w - lr * (1 - mu) / (1 - mu_product) * g / denom
        w = w - lr * mu_next / (1 - mu_product * mu_next) * m / denom
        out.append(w)
    return out


def ref_lamb(lr, beta1=0.9, beta2=0.999, eps=1e-6, weight_decay=0.0):
    import torch

    W0 = problem()[2]
    w, m, v, out = W0.clone(), torch.zeros(3), torch.zeros(3), []
    for t in range(1, 4):
        g = grad(w)
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        u = (m / (1 - beta1**t)) / ((v / (1 - beta2**t)).sqrt() + eps) + weight_decay * w
        w = w - lr * (w.norm() / u.norm()) * u
        out.append(w)
    return out


def ref_lars(lr, momentum=0.9, weight_decay=0.0, trust_coefficient=0.02):
    import torch

    W0 = problem()[2]
    w, v, out = W0.clone(), torch.zeros(3), []
    for _ in range(3):
        g = grad(w)
        local = trust_coefficient * w.norm() / (g.norm() + weight_decay * w.norm())
        v = momentum * v + lr * local * (g + weight_decay * w)
        w = w - v
        out.append(w)
    return out


def ref_lookahead_sgd(lr, k, alpha):
    W0 = problem()[2]
    w, slow, out = W0.clone(), W0.clone(), []
    for t in range(1, 4):
        w = w - lr * grad(w)
        if t % k == 0:
            slow = slow + alpha * (w - slow)
            w = slow.clone()
        out.append(w)
    return out


def ref_newton(lr=1.0, damping=0.0):
    import torch

    A, _, W0 = problem()
    w, out = W0.clone(), []
    for _ in range(3):
        w = w - lr * torch.linalg.solve(A + damping * torch.eye(3), grad(w))
        out.append(w)
    return out


CASES = {
    "gd": [({"lr": 0.1}, lambda: ref_sgd(0.1)),
           ({"lr": 0.2, "weight_decay": 0.1}, lambda: ref_sgd(0.2, weight_decay=0.1))],
    "sgd": [({"lr": 0.1}, lambda: ref_sgd(0.1)),
            ({"lr": 0.1, "momentum": 0.8, "nesterov": True}, lambda: ref_sgd(0.1, 0.8, nesterov=True))],
    "momentum": [({"lr": 0.1, "momentum": 0.9, "weight_decay": 0.05},
                  lambda: ref_sgd(0.1, 0.9, weight_decay=0.05))],
    "momentum_lr_inside": [({"lr": 0.1, "momentum": 0.9, "weight_decay": 0.05},
                            lambda: ref_sgd(0.1, 0.9, weight_decay=0.05, inside=True))],
    "nesterov": [({"lr": 0.1, "momentum": 0.9}, lambda: ref_sgd(0.1, 0.9, nesterov=True))],
    "adagrad": [({"lr": 0.5}, lambda: ref_adagrad(0.5)),
                ({"lr": 0.5, "initial_accumulator": 0.1, "weight_decay": 0.01},
                 lambda: ref_adagrad(0.5, initial_accumulator=0.1, weight_decay=0.01))],
    "rmsprop": [({"lr": 0.01}, lambda: ref_rmsprop(0.01)),
                ({"lr": 0.01, "momentum": 0.5, "centered": True},
                 lambda: ref_rmsprop(0.01, momentum=0.5, centered=True))],
    "adam": [({"lr": 0.1}, lambda: ref_adam(0.1)),
             ({"lr": 0.1, "beta1": 0.8, "weight_decay": 0.1}, lambda: ref_adam(0.1, beta1=0.8, weight_decay=0.1))],
    "adamw": [({"lr": 0.1, "weight_decay": 0.1}, lambda: ref_adam(0.1, weight_decay=0.1, decoupled=True))],
    "amsgrad": [({"lr": 0.1, "beta2": 0.9}, lambda: ref_adam(0.1, beta2=0.9, amsgrad=True))],
    "nadam": [({"lr": 0.1}, lambda: ref_nadam(0.1)),
              ({"lr": 0.1, "momentum_decay": 0.1}, lambda: ref_nadam(0.1, momentum_decay=0.1))],
    "lamb": [({"lr": 0.1}, lambda: ref_lamb(0.1)),
             ({"lr": 0.1, "weight_decay": 0.1}, lambda: ref_lamb(0.1, weight_decay=0.1))],
    "lars": [({"lr": 1.0}, lambda: ref_lars(1.0)),
             ({"lr": 1.0, "weight_decay": 0.1, "trust_coefficient": 0.1},
              lambda: ref_lars(1.0, weight_decay=0.1, trust_coefficient=0.1))],
    "lookahead": [({"inner": "sgd", "lr": 0.1, "k": 2, "alpha": 0.5}, lambda: ref_lookahead_sgd(0.1, 2, 0.5))],
    "newton": [({}, lambda: ref_newton()), ({"lr": 0.5, "damping": 0.1}, lambda: ref_newton(0.5, 0.1))],
}


def test_every_registered_optimizer_has_a_reference():
    assert set(CASES) == set(OPTIMIZERS.names())


@pytest.mark.parametrize("name,values,reference",
                         [(n, v, r) for n, cases in CASES.items() for v, r in cases],
                         ids=[f"{n}-{i}" for n, cases in CASES.items() for i in range(len(cases))])
def test_first_three_steps_match_the_reference(name, values, reference):
    import torch

    W0 = problem()[2]
    got, want = run(name, **values), reference()
    for step, (g, w) in enumerate(zip(got, want, strict=True), start=1):
        assert torch.allclose(g, w, atol=1e-6, rtol=0), f"{name} step {step}: {g.tolist()} != {w.tolist()}"
    assert not torch.allclose(got[-1], W0)  # it moved


def test_every_entry_explains_itself():
    for entry in OPTIMIZERS:
        assert entry.description and entry.info, entry.name
        assert any(p.name == "lr" for p in entry.params), entry.name
        assert callable(entry.load_builder())


# --- the two momentum forms ----------------------------------------------------------------------------
def _momentum_path(name: str, lr_change_at: int | None, steps: int = 6) -> list[torch.Tensor]:
    W0 = problem()[2]
    w = W0.clone().requires_grad_(True)
    opt = build(name, [w], lr=0.1, momentum=0.9)
    out = []
    for step in range(steps):
        if step == lr_change_at:
            opt.param_groups[0]["lr"] = 0.01
        opt.zero_grad()
        quadratic(w).backward()
        opt.step()
        out.append(w.detach().clone())
    return out


def test_momentum_forms_agree_at_constant_lr():
    import torch

    for a, b in zip(_momentum_path("momentum", None), _momentum_path("momentum_lr_inside", None), strict=True):
        assert torch.allclose(a, b, atol=1e-12)


def test_momentum_forms_differ_after_an_lr_change():
    import torch

    outside, inside = _momentum_path("momentum", 3), _momentum_path("momentum_lr_inside", 3)
    for a, b in zip(outside[:3], inside[:3], strict=True):
        assert torch.allclose(a, b, atol=1e-12)
    # outside: the whole velocity is rescaled by the new η at once; inside: old velocity keeps the old η
    assert (outside[3] - inside[3]).norm() > 1e-2
    ref_inside = ref_sgd(0.1, 0.9, inside=True, steps=3)[-1]
    v_before = ref_inside - ref_sgd(0.1, 0.9, inside=True, steps=2)[-1]  # = −v after step 3
    want = ref_inside + 0.9 * v_before - 0.01 * grad(ref_inside)
    assert torch.allclose(inside[3], want, atol=1e-12)


# --- Newton and gradient descent on F(w) = ½wᵀDw ---------------------------------------------------------
def diag_quadratic(w: torch.Tensor) -> torch.Tensor:
    import torch

    D = torch.tensor([1.0, 4.0, 10.0], dtype=torch.float64)
    return 0.5 * (D * w * w).sum()


def test_newton_reaches_the_minimum_in_one_step():
    import torch

    A, B, _ = problem()
    w0 = torch.tensor([3.0, -2.0, 5.0])
    (w1,) = run("newton", steps=1, loss=diag_quadratic, w0=w0)
    assert torch.allclose(w1, torch.zeros(3), atol=1e-12)
    (w1,) = run("newton", steps=1, w0=w0)  # the non-diagonal quadratic: w* = A⁻¹b
    assert torch.allclose(w1, torch.linalg.solve(A, B), atol=1e-12)


@pytest.mark.parametrize("lr,converges", [(0.9 * 2 / 10, True), (1.1 * 2 / 10, False)])
def test_gradient_descent_converges_iff_lr_below_two_over_max_curvature(lr, converges):
    import torch

    w = run("gd", steps=300, loss=diag_quadratic, w0=torch.ones(3), lr=lr)[-1]
    if converges:
        assert w.norm() < 1e-6
    else:
        assert w.norm() > 1e6  # the stiffest direction grows by |1 − 10η| = 1.2 per step


def test_newton_refuses_large_models():
    import torch

    layer = torch.nn.Linear(100, 30)
    with pytest.raises(ConfigError, match="max_params"):
        build("newton", layer.parameters())
    build("newton", layer.parameters(), max_params=5000)


def test_newton_needs_a_closure():
    W0 = problem()[2]
    w = W0.clone().requires_grad_(True)
    with pytest.raises(RuntimeError, match="closure"):
        build("newton", [w]).step()


# --- trust ratios ---------------------------------------------------------------------------------------
def _two_tensors(grad_scale: float):
    import torch

    small = torch.tensor([0.1, -0.2, 0.05], requires_grad=True)
    big = torch.tensor([[3.0, -4.0], [1.0, 2.0]], requires_grad=True)
    targets = (torch.tensor([1.0, 1.0, 1.0]), torch.tensor([[0.0, 1.0], [2.0, -1.0]]))
    loss = grad_scale * sum(((p - t) ** 2).sum() for p, t in zip((small, big), targets, strict=True))
    loss.backward()
    return small, big


def test_lamb_trust_ratio_is_weight_norm_over_update_norm():
    import torch

    small, big = _two_tensors(1.0)
    before = [p.detach().clone() for p in (small, big)]
    grads = [p.grad.clone() for p in (small, big)]
    opt = build("lamb", [small, big], lr=0.1, weight_decay=0.01, eps=1e-6)
    opt.step()
    for p, w, g in zip((small, big), before, grads, strict=True):
        u = g / (g.abs() + 1e-6) + 0.01 * w  # first step: m̂ = g, v̂ = g²
        ratio = w.norm() / u.norm()
        assert torch.allclose(opt.state[p]["trust_ratio"], ratio, atol=1e-9)
        assert torch.allclose(p.detach(), w - 0.1 * ratio * u, atol=1e-9)
        # each tensor moves by lr × its own norm, whatever its gradient's scale
        assert math.isclose((p.detach() - w).norm().item(), 0.1 * w.norm().item(), rel_tol=1e-9)


def test_lars_trust_ratio_matches_the_formula_and_ignores_gradient_scale():
    import torch

    steps = []
    for scale in (1.0, 1000.0):
        small, big = _two_tensors(scale)
        before = [p.detach().clone() for p in (small, big)]
        grads = [p.grad.clone() for p in (small, big)]
        opt = build("lars", [small, big], lr=0.5, momentum=0.9, weight_decay=0.0, trust_coefficient=0.02)
        opt.step()
        for p, w, g in zip((small, big), before, grads, strict=True):
            ratio = 0.02 * w.norm() / g.norm()
            assert torch.allclose(opt.state[p]["trust_ratio"], ratio, atol=1e-12)
            assert math.isclose((p.detach() - w).norm().item(), 0.5 * 0.02 * w.norm().item(), rel_tol=1e-9)
        steps.append([p.detach().clone() for p in (small, big)])
    for a, b in zip(*steps, strict=True):
        assert torch.allclose(a, b, atol=1e-12)


def test_lars_formula_with_weight_decay():
    import torch

    small, big = _two_tensors(1.0)
    w, g = big.detach().clone(), big.grad.clone()
    opt = build("lars", [small, big], lr=0.5, weight_decay=0.1, trust_coefficient=0.02)
    opt.step()
    assert torch.allclose(opt.state[big]["trust_ratio"], 0.02 * w.norm() / (g.norm() + 0.1 * w.norm()), atol=1e-12)


# --- Lookahead ------------------------------------------------------------------------------------------
def test_lookahead_slow_weights_are_the_ema_of_the_fast_weights_at_each_sync():
    import torch

    W0 = problem()[2]
    k, alpha = 3, 0.4
    w = W0.clone().requires_grad_(True)
    opt = build("lookahead", [w], inner="momentum", lr=0.05, k=k, alpha=alpha, inner_options="momentum=0.5")
    assert opt.inner.param_groups[0]["momentum"] == 0.5
    fast = []  # the weights right after each inner (fast) step, before Lookahead looks at them
    opt.inner.register_step_post_hook(lambda *_: fast.append(w.detach().clone()))
    slow = W0.clone()
    for step in range(1, 4 * k + 1):
        opt.zero_grad()
        quadratic(w).backward()
        opt.step()
        if step % k:
            assert torch.equal(w.detach(), fast[-1])  # between syncs the fast weights move freely
        else:
            slow = slow + alpha * (fast[-1] - slow)  # φ ← φ + α(θ − φ)
            assert torch.allclose(opt.state[w]["slow"], slow, atol=1e-12)
            assert torch.equal(w.detach(), opt.state[w]["slow"])  # θ ← φ
    # the closed form of that recursion: an exponential moving average of the fast weights at the syncs
    syncs = fast[k - 1::k]
    j = len(syncs)
    ema = (1 - alpha) ** j * W0 + sum(alpha * (1 - alpha) ** (j - i) * f for i, f in enumerate(syncs, 1))
    assert torch.allclose(opt.state[w]["slow"], ema, atol=1e-12)


def test_lookahead_checks_its_inner_options_and_round_trips_its_state(tmp_path):
    import torch

    W0 = problem()[2]
    w = W0.clone().requires_grad_(True)
    with pytest.raises(ConfigError, match="momentum"):
        build("lookahead", [w], inner="adam", inner_options="momentum=0.9")
    with pytest.raises(ConfigError, match="key=value"):
        build("lookahead", [w], inner="sgd", inner_options="momentum")
    opt = build("lookahead", [w], inner="adam", lr=0.1, k=2)
    for _ in range(3):
        opt.zero_grad()
        quadratic(w).backward()
        opt.step()
    torch.save(opt.state_dict(), tmp_path / "opt.pt")
    w2 = w.detach().clone().requires_grad_(True)
    opt2 = build("lookahead", [w2], inner="adam", lr=0.1, k=2)
    opt2.load_state_dict(torch.load(tmp_path / "opt.pt", weights_only=True))
    for o, p in ((opt, w), (opt2, w2)):
        o.zero_grad()
        quadratic(p).backward()
        o.step()
    assert torch.allclose(w, w2, atol=1e-12)
