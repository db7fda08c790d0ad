"""Curvature of the loss at a point: top Hessian eigenvalues, the Hessian trace, ε-sharpness.

Everything works on Hessian-vector products (never the Hessian itself), as PyHessian does
(Yao et al. 2020): ``torch.func`` ``vjp(grad(loss))`` (H is symmetric), summed over data batches.

- :func:`lanczos`: top-k eigenvalues (largest first) from a Lanczos tridiagonalisation with full
  re-orthogonalisation; stops when the top-k Ritz residuals are small. :func:`top_eigenpair`: the top one with
  its vector, optionally from a start vector (a warm start from the last measurement).
- :func:`power_iteration`: the k eigenvalues of largest magnitude by power iteration with deflation
  (PyHessian's method); ``shift=True`` turns a negative dominant eigenvalue into the top one.
- :func:`hutchinson_trace`: ``E[vᵀHv]`` over Rademacher vectors (Hutchinson 1989), with its standard error.
- :func:`eps_sharpness`: Keskar et al. 2017's φ: the largest relative loss rise within the box
  ``|z_i| ≤ ε(|θ_i| + 1)``, found by projected (sign-)gradient ascent from a random start, in percent.

The model runs in eval mode (BatchNorm on the checkpoint's running statistics, no dropout).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import nn
from torch.func import functional_call, grad, grad_and_value, vjp, vmap
from torch.nn.attention import SDPBackend, sdpa_kernel

from studio.core.landscape.directions import Params, flatten, unflatten
from studio.core.maths.objectives import LossFn, cross_entropy_sum

Step = Callable[[int, int], None]  # progress(done, total); may raise to cancel
MatVec = Callable[[torch.Tensor], torch.Tensor]


class LossFunction:
    """The mean loss over ``(x, y)`` as a function of the parameters, with gradients and HVPs."""

    def __init__(self, model: nn.Module, params: Params, x: torch.Tensor, y: torch.Tensor,
                 loss_fn: LossFn = cross_entropy_sum, batch_size: int = 1024) -> None:
        model.eval()
        self.model = model
        self.params = {n: p.detach() for n, p in params.items()}
        self.buffers = dict(model.named_buffers())
        self.loss_fn = loss_fn
        self.n = len(y)
        self.batches = [(x[i:i + batch_size], y[i:i + batch_size]) for i in range(0, len(y), batch_size)]
        self.dim = sum(p.numel() for p in self.params.values())

    def _batch_loss(self, params: Params, xb: torch.Tensor, yb: torch.Tensor) -> torch.Tensor:
        with sdpa_kernel(SDPBackend.MATH):  # attention's fused kernels have no second derivative (HVPs need one)
            out = functional_call(self.model, {**self.buffers, **params}, (xb,))
        return self.loss_fn(out, yb) / self.n

    def value(self, params: Params | None = None) -> float:
        params = self.params if params is None else params
        with torch.no_grad():
            return float(sum(self._batch_loss(params, xb, yb) for xb, yb in self.batches))

    def value_and_grad(self, params: Params) -> tuple[float, Params]:
        total, grads = 0.0, {n: torch.zeros_like(p) for n, p in params.items()}
        for xb, yb in self.batches:
            g, v = grad_and_value(self._batch_loss)(params, xb, yb)
            total += float(v)
            for n in grads:
                grads[n] += g[n]
        return total, grads

    def hvp(self, v: Params) -> Params:
        """H·v at ``self.params`` (reverse-over-reverse: the vector-Jacobian product of the gradient)."""
        out: Params | None = None
        for xb, yb in self.batches:
            pullback = vjp(lambda p, xb=xb, yb=yb: grad(self._batch_loss)(p, xb, yb), self.params)[1]
            (hv,) = pullback(v)
            out = hv if out is None else {n: out[n] + hv[n] for n in out}  # not in place: vmap-able
        if out is None:
            raise ValueError("a Hessian-vector product needs at least one sample")
        return out

    def matvec(self, vector: torch.Tensor) -> torch.Tensor:
        """H·v on flat vectors (parameter order of ``self.params``)."""
        v = unflatten(vector.to(self.dtype), self.params)
        return flatten(self.hvp(v)).to(vector.dtype)

    def matmat(self, vectors: torch.Tensor) -> torch.Tensor:
        """H·v for each row of ``vectors`` (B, dim) in one vmapped pass."""
        return vmap(self.matvec)(vectors)

    @property
    def device(self) -> torch.device:
        return next(iter(self.params.values())).device

    @property
    def dtype(self) -> torch.dtype:
        return next(iter(self.params.values())).dtype


def _random_unit(dim: int, seed: int, device: torch.device) -> torch.Tensor:
    v = torch.randn(dim, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    return (v / v.norm()).to(device)


def lanczos(matvec: MatVec, dim: int, k: int = 1, iters: int = 60, tol: float = 1e-4, seed: int = 0,
            device: torch.device | str = "cpu", progress: Step | None = None) -> list[float]:
    """The ``k`` largest eigenvalues (largest first) of the symmetric operator ``matvec``."""
    ritz, _vecs, _basis = _lanczos(matvec, dim, k, iters, tol, _random_unit(dim, seed, torch.device(device)),
                                   progress)
    return sorted(ritz.tolist(), reverse=True)[:k]


def top_eigenpair(matvec: MatVec, dim: int, iters: int = 60, tol: float = 1e-4, seed: int = 0,
                  device: torch.device | str = "cpu", start: torch.Tensor | None = None) -> tuple[float, torch.Tensor]:
    """(the largest eigenvalue, its unit Ritz vector) by Lanczos. ``start``: the vector to begin from (the last
    measurement's, when the operator changed little since: a warm start converges in a few products)."""
    device = torch.device(device)
    if start is None or not bool(torch.isfinite(start).all()) or float(start.norm()) == 0.0:
        first = _random_unit(dim, seed, device)
    else:
        first = (start.double() / start.double().norm()).to(device)
    ritz, vecs, basis = _lanczos(matvec, dim, 1, iters, tol, first, None)
    vector = torch.stack(basis[:vecs.shape[0]]).T @ vecs[:, -1]
    return float(ritz[-1]), vector / vector.norm()


def _lanczos(matvec: MatVec, dim: int, k: int, iters: int, tol: float, first: torch.Tensor,
             progress: Step | None) -> tuple[torch.Tensor, torch.Tensor, list[torch.Tensor]]:
    """Lanczos from the unit vector ``first`` with full re-orthogonalisation, until the top-``k`` Ritz residuals
    are below ``tol`` (relative) or ``iters`` products: (Ritz values ascending, their vectors in the Krylov basis,
    the basis)."""
    iters = max(k + 1, min(iters, dim))
    basis = [first]
    alphas: list[float] = []
    betas: list[float] = []
    ritz = torch.zeros(0, dtype=torch.float64)
    vecs = torch.zeros(0, 0, dtype=torch.float64)
    for j in range(iters):
        w = matvec(basis[j]).double()
        alphas.append(float(w @ basis[j]))
        q = torch.stack(basis)  # (j+1, dim)
        for _ in range(2):  # full re-orthogonalisation, twice is enough
            w = w - q.T @ (q @ w)
        beta = float(w.norm())
        t = torch.diag(torch.tensor(alphas, dtype=torch.float64))
        if betas:
            off = torch.tensor(betas, dtype=torch.float64)
            t += torch.diag(off, 1) + torch.diag(off, -1)
        ritz, vecs = torch.linalg.eigh(t)
        if progress:
            progress(j + 1, iters)
        top = min(k, len(alphas))
        residual = (beta * vecs[-1, -top:]).abs()
        converged = bool((residual <= tol * ritz[-top:].abs().clamp_min(1e-12)).all())
        if (len(alphas) >= k and converged) or beta < 1e-10 * max(1.0, float(ritz.abs().max())):
            break
        betas.append(beta)
        basis.append(w / beta)
    return ritz, vecs, basis


def power_iteration(matvec: MatVec, dim: int, k: int = 1, iters: int = 100, tol: float = 1e-4, seed: int = 0,
                    device: torch.device | str = "cpu", shift: bool = True,
                    progress: Step | None = None) -> list[float]:
    """The ``k`` eigenvalues of largest magnitude, by power iteration with deflation (PyHessian).

    With ``shift`` and ``k == 1``, a negative dominant eigenvalue λ is followed by a second run on
    ``H − λI``, so the result is the top (largest algebraic) eigenvalue.
    """
    device = torch.device(device)
    found: list[torch.Tensor] = []
    values: list[float] = []

    def orthonormal(v: torch.Tensor) -> torch.Tensor:
        for u in found:
            v = v - (v @ u) * u
        return v / v.norm().clamp_min(1e-30)

    def run(op: MatVec, seed: int) -> tuple[float, torch.Tensor]:
        v = orthonormal(_random_unit(dim, seed, device))
        value = math.nan
        for it in range(iters):
            hv = op(v).double()
            new = float(hv @ v)
            v = orthonormal(hv)
            if progress:
                progress(it + 1, iters)
            if math.isfinite(value) and abs(new - value) <= tol * (abs(value) + 1e-12):
                return new, v
            value = new
        return value, v

    for i in range(k):
        value, v = run(matvec, seed + i)
        found.append(v)
        values.append(value)
    if shift and k == 1 and values[0] < 0:
        lam = values[0]
        found.clear()
        mu, _ = run(lambda v: matvec(v).double() - lam * v, seed + 1)
        values = [mu + lam]
    return values


def hutchinson_trace(matvec: MatVec, dim: int, samples: int = 100, seed: int = 0,
                     device: torch.device | str = "cpu", matmat: MatVec | None = None, block: int = 16,
                     progress: Step | None = None) -> tuple[float, float]:
    """(estimate, standard error) of tr(H) from ``samples`` Rademacher probes.

    With ``matmat`` (H applied to the rows of a matrix, e.g. :meth:`LossFunction.matmat`) the probes go
    ``block`` at a time.
    """
    gen = torch.Generator().manual_seed(seed)
    block = block if matmat is not None else 1
    estimates: list[torch.Tensor] = []
    done = 0
    while done < samples:
        b = min(block, samples - done)
        v = (torch.randint(0, 2, (b, dim), generator=gen, dtype=torch.float64) * 2 - 1).to(device)
        hv = matmat(v.float()).double() if matmat is not None else matvec(v[0]).double().unsqueeze(0)
        estimates.append((hv * v).sum(dim=1).cpu())
        done += b
        if progress:
            progress(done, samples)
    est = torch.cat(estimates)
    stderr = float(est.std() / math.sqrt(samples)) if samples > 1 else math.nan
    return float(est.mean()), stderr


def eps_sharpness(loss: LossFunction, eps: float = 1e-3, steps: int = 10, seed: int = 0,
                  progress: Step | None = None) -> dict[str, float]:
    """Keskar et al. 2017's sharpness φ(θ, ε) = 100 · (max_{z ∈ C_ε} f(θ+z) − f(θ)) / (1 + f(θ)).

    ``C_ε`` is the box ``|z_i| ≤ ε(|θ_i| + 1)`` over every parameter. The maximum is searched by
    ``steps`` steps of projected sign-gradient ascent of size ``2·bound/steps`` from a uniform random
    start in the box (the paper used L-BFGS-B); the best point seen counts.
    """
    theta = loss.params
    f0 = loss.value(theta)
    gen = torch.Generator().manual_seed(seed)
    bound = {n: eps * (p.abs() + 1) for n, p in theta.items()}
    z = {n: (torch.rand(p.shape, generator=gen, dtype=torch.float32).to(p) * 2 - 1) * bound[n]
         for n, p in theta.items()}
    best = -math.inf
    for s in range(steps):
        value, g = loss.value_and_grad({n: theta[n] + z[n] for n in theta})
        best = max(best, value)
        z = {n: torch.clamp(z[n] + (2 * bound[n] / steps) * g[n].sign(), -bound[n], bound[n]) for n in z}
        if progress:
            progress(s + 1, steps + 1)
    best = max(best, loss.value({n: theta[n] + z[n] for n in theta}))
    if progress:
        progress(steps + 1, steps + 1)
    return {"eps_sharpness": 100 * (best - f0) / (1 + f0), "loss": f0, "max_loss": best, "eps": eps}
