"""Optimizers torch.optim does not have, as ``torch.optim.Optimizer`` subclasses.

- ``MomentumLrInside``: SGD momentum with the learning rate inside the velocity (v ← βv + ηg; w ← w − v).
  torch.optim.SGD is the other form (v ← βv + g; w ← w − ηv): the two agree while η is constant.
- ``Lamb`` and ``Lars``: layer-wise trust ratios on Adam's and on SGD-momentum's update.
- ``Lookahead``: k fast steps of any optimizer, then slow ← slow + α(fast − slow), fast ← slow.
- ``Newton``: the exact Hessian (small models only); its ``step`` needs a closure returning the loss.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import torch
from torch.optim import Optimizer

from studio.core.errors import ConfigError

# The loss closure of ``step``. torch annotates it (and step's result) as float, with overloads on None; in
# practice, and in torch's own optimizers (whose step is untyped), it is the loss tensor: hence the
# ``type: ignore`` on our step overrides.
Closure = Callable[[], torch.Tensor] | None


def _trust_ratio(numerator: torch.Tensor, denominator: torch.Tensor) -> torch.Tensor:
    """numerator / denominator, or 1 where either is zero (a zero-initialised bias, a zero update)."""
    ok = (numerator > 0) & (denominator > 0)
    return torch.where(ok, numerator / torch.where(ok, denominator, 1.0), torch.ones_like(numerator))


def evaluate(closure: Closure) -> torch.Tensor | None:
    """The loss from an optimizer's closure (with gradients on, as torch.optim does), or None."""
    if closure is None:
        return None
    with torch.enable_grad():
        return closure()


class MomentumLrInside(Optimizer):
    """Heavy-ball momentum, learning rate inside: v ← βv + η(g + λw);  w ← w − v."""

    def __init__(self, params: Iterable, lr: float, momentum: float = 0.9, weight_decay: float = 0.0) -> None:
        super().__init__(params, dict(lr=lr, momentum=momentum, weight_decay=weight_decay))

    @torch.no_grad()
    def step(self, closure: Closure = None) -> torch.Tensor | None:  # type: ignore[override]  # see Closure
        loss = evaluate(closure)
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                g = p.grad.add(p, alpha=group["weight_decay"]) if group["weight_decay"] else p.grad
                state = self.state[p]
                if "velocity" not in state:
                    state["velocity"] = torch.zeros_like(p)
                v = state["velocity"]
                v.mul_(group["momentum"]).add_(g, alpha=group["lr"])
                p.sub_(v)
        return loss


class Lamb(Optimizer):
    """LAMB (You et al. 2020): Adam's update u = m̂/(√v̂+ε) + λw, scaled per tensor by ‖w‖/‖u‖.

    The last trust ratio of each tensor is kept in ``state[p]["trust_ratio"]``.
    """

    def __init__(self, params: Iterable, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-6, weight_decay: float = 0.0) -> None:
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))

    @torch.no_grad()
    def step(self, closure: Closure = None) -> torch.Tensor | None:  # type: ignore[override]  # see Closure
        loss = evaluate(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if not state:
                    state.update(step=0, m=torch.zeros_like(p), v=torch.zeros_like(p))
                state["step"] += 1
                t = state["step"]
                state["m"].mul_(beta1).add_(p.grad, alpha=1 - beta1)
                state["v"].mul_(beta2).addcmul_(p.grad, p.grad, value=1 - beta2)
                m_hat = state["m"] / (1 - beta1**t)
                v_hat = state["v"] / (1 - beta2**t)
                update = m_hat / (v_hat.sqrt() + group["eps"])
                if group["weight_decay"]:
                    update.add_(p, alpha=group["weight_decay"])
                ratio = _trust_ratio(p.norm(), update.norm())
                state["trust_ratio"] = ratio
                p.sub_(update * (group["lr"] * ratio))
        return loss


class Lars(Optimizer):
    """LARS (You, Gitman & Ginsburg 2017): SGD momentum with a per-tensor local learning rate

    local = trust_coefficient · ‖w‖ / (‖g‖ + λ‖w‖);  v ← βv + η·local·(g + λw);  w ← w − v.
    The last local rate of each tensor is kept in ``state[p]["trust_ratio"]``.
    """

    def __init__(self, params: Iterable, lr: float = 0.1, momentum: float = 0.9, weight_decay: float = 0.0,
                 trust_coefficient: float = 0.02) -> None:
        super().__init__(params, dict(lr=lr, momentum=momentum, weight_decay=weight_decay,
                                      trust_coefficient=trust_coefficient))

    @torch.no_grad()
    def step(self, closure: Closure = None) -> torch.Tensor | None:  # type: ignore[override]  # see Closure
        loss = evaluate(closure)
        for group in self.param_groups:
            wd = group["weight_decay"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                w_norm, g_norm = p.norm(), p.grad.norm()
                ratio = group["trust_coefficient"] * _trust_ratio(w_norm, g_norm + wd * w_norm)
                ratio = torch.where((w_norm > 0) & (g_norm > 0), ratio, torch.ones_like(ratio))
                state = self.state[p]
                state["trust_ratio"] = ratio
                if "velocity" not in state:
                    state["velocity"] = torch.zeros_like(p)
                v = state["velocity"]
                v.mul_(group["momentum"]).add_((p.grad + wd * p) * (group["lr"] * ratio))
                p.sub_(v)
        return loss


class Lookahead(Optimizer):
    """Lookahead (Zhang et al. 2019) around any optimizer: every k steps of the inner ("fast") one,
    slow ← slow + α(fast − slow) and the fast weights restart from the slow ones.

    Shares the inner optimizer's ``param_groups``, so schedules change the inner learning rate.
    """

    def __init__(self, inner: Optimizer, k: int = 5, alpha: float = 0.5) -> None:
        if k < 1 or not 0.0 < alpha <= 1.0:
            raise ConfigError(f"lookahead needs k ≥ 1 and 0 < alpha ≤ 1; got k={k}, alpha={alpha}")
        self.inner, self.k, self.alpha = inner, k, alpha
        super().__init__(inner.param_groups, {})
        self.param_groups = inner.param_groups
        self.defaults = inner.defaults
        self.fast_steps = 0
        for p in self._params():
            self.state[p]["slow"] = p.detach().clone()
        self.requires_closure = getattr(inner, "requires_closure", False)

    def _params(self) -> list[torch.Tensor]:
        return [p for group in self.param_groups for p in group["params"]]

    def step(self, closure: Closure = None) -> torch.Tensor | None:  # type: ignore[override]  # see Closure
        loss = self.inner.step(closure)  # type: ignore[arg-type]  # see Closure
        self.fast_steps += 1
        if self.fast_steps % self.k == 0:
            with torch.no_grad():
                for p in self._params():
                    slow = self.state[p]["slow"]
                    slow.add_(p - slow, alpha=self.alpha)
                    p.copy_(slow)
        return loss

    def state_dict(self) -> dict[str, Any]:
        return {"inner": self.inner.state_dict(), "fast_steps": self.fast_steps,
                "slow": [self.state[p]["slow"] for p in self._params()]}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.inner.load_state_dict(state_dict["inner"])
        self.fast_steps = int(state_dict["fast_steps"])
        for p, slow in zip(self._params(), state_dict["slow"], strict=True):
            self.state[p]["slow"] = slow.to(p.device, p.dtype).clone()


class Newton(Optimizer):
    """Newton's method: w ← w − η (H + δI)⁻¹ ∇F with the exact Hessian H of the closure's loss.

    Builds the n×n Hessian, so it refuses models with more than ``max_params`` parameters.
    ``step`` needs ``closure``: a function that computes the loss (with a graph, no backward).
    """

    requires_closure = True

    def __init__(self, params: Iterable, lr: float = 1.0, damping: float = 0.0, max_params: int = 2000) -> None:
        super().__init__(params, dict(lr=lr, damping=damping))
        n = sum(p.numel() for p in self._params())
        if n > max_params:
            raise ConfigError(
                f"Newton's method builds the exact {n}×{n} Hessian and this model has {n:,} trainable parameters, "
                f"above the limit of {max_params:,} (optimizer.max_params); pick a small model such as linear or "
                "linear_neuron, or another optimizer"
            )

    def _params(self) -> list[torch.Tensor]:
        return [p for group in self.param_groups for p in group["params"] if p.requires_grad]

    def step(self, closure: Closure = None) -> torch.Tensor:  # type: ignore[override]  # see Closure
        if closure is None:
            raise RuntimeError("Newton.step needs a closure that returns the loss")
        params = self._params()
        with torch.enable_grad():
            loss = closure()
            grads = torch.autograd.grad(loss, params, create_graph=True)
            g = torch.cat([x.reshape(-1) for x in grads])
            hessian = _hessian(g, params)
        with torch.no_grad():
            damping = self.param_groups[0]["damping"]
            if damping:
                hessian = hessian + damping * torch.eye(len(g), dtype=g.dtype, device=g.device)
            delta = _solve(hessian, g.detach())
            lrs = {id(p): group["lr"] for group in self.param_groups for p in group["params"]}
            offset = 0
            for p in params:
                n = p.numel()
                p.sub_(delta[offset:offset + n].view_as(p), alpha=lrs[id(p)])
                offset += n
        return loss.detach()


def _hessian(g: torch.Tensor, params: list[torch.Tensor]) -> torch.Tensor:
    """Rows ∂g_i/∂w of the flat gradient ``g`` (built with a graph): one batched backward pass."""
    n = len(g)
    eye = torch.eye(n, dtype=g.dtype, device=g.device)
    try:
        rows = torch.autograd.grad(g, params, grad_outputs=eye, is_grads_batched=True, allow_unused=True,
                                   retain_graph=True)
    except RuntimeError:  # an op without a batching rule: one backward pass per row
        per_row = [torch.autograd.grad(g[i], params, retain_graph=True, allow_unused=True) for i in range(n)]
        rows = tuple(torch.stack([r[j] if r[j] is not None else torch.zeros_like(p) for r in per_row])
                     for j, p in enumerate(params))
    blocks = [r.reshape(n, -1) if r is not None else torch.zeros(n, p.numel(), dtype=g.dtype, device=g.device)
              for r, p in zip(rows, params, strict=True)]
    return torch.cat(blocks, dim=1)


def _solve(hessian: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
    """H⁺g with the pseudo-inverse of the symmetrised Hessian: directions with (near) zero curvature are
    left alone (softmax regression's Hessian is singular: adding a constant to every class score changes nothing)."""
    sym = (hessian + hessian.T) / 2
    rtol = torch.finfo(sym.dtype).eps ** 0.5
    return torch.linalg.pinv(sym, hermitian=True, rtol=rtol) @ g
