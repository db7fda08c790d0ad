"""Scaling-law fits: L(x) = a·x^(−b) + c, with an uncertainty band and an extrapolation.

Pure maths (numpy + scipy.optimize.curve_fit). ``x`` is steps, samples seen or parameter count; ``L`` a loss.
The fit runs on x / x_max (so ``a`` stays well conditioned) and reports ``a`` in the original units. The band
is the curve's 95 % confidence band by the delta method on log L (its relative standard error from the fit's
covariance), narrow where the data are and widening where they stop, as an extrapolation should.
numpy and scipy are imported when used, so the CLI's parser and the GUI stay light.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

from studio.core.contracts.scaling import PowerLawSummary
from studio.core.errors import DataError

AGAINST = ("steps", "samples", "params", "non_embedding")  # what x can be; non_embedding: Kaplan et al.'s N
BY_SIZE = ("params", "non_embedding")  # one fit over several runs, each its final loss at its size
MIN_POINTS = 4  # three parameters need at least one point more to say anything about the fit


def power_law(x: np.ndarray, a: float, b: float, c: float) -> np.ndarray:
    import numpy as np

    return a * np.power(x, -b) + c


@dataclass
class PowerLawFit:
    a: float
    b: float
    c: float
    r2: float
    points: int
    x_min: float
    x_max: float
    stderr: dict[str, float] = field(default_factory=dict)  # one standard error of a, b, c (NaN: unknown)
    _cov: Any = field(default=None, repr=False)  # covariance of (A, b, c) with A = a·x_max^(−b)

    def predict(self, x: np.ndarray | float) -> np.ndarray:
        import numpy as np

        return power_law(np.asarray(x, dtype=float), self.a, self.b, self.c)

    def band(self, x: np.ndarray | float, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
        """Lower and upper edges of the ``level`` band of the fitted curve at ``x``, by the delta method on
        log L: the curve's standard error ``se = sqrt(J Σ Jᵀ)`` from the fit's covariance Σ of (A, b, c) and
        the curve's gradient J at ``x``, taken as a relative error, so the band is ``L·exp(±z·se/L)``. Where
        the data are, the parameters' correlations cancel and the band is as narrow as the residuals say;
        beyond them it widens with log(x / x_max); a loss stays positive, and on the log–log plot the band is
        symmetric about the curve. (Drawing parameters from Σ, as before, let the curve's nonlinearity in b
        plunge the band inside the data range; a linear ±z·se band crossed zero, which a log axis cannot draw.)"""
        import numpy as np
        from scipy.stats import norm

        x = np.atleast_1d(np.asarray(x, dtype=float))
        mid = self.predict(x)
        cov = self._cov
        if cov is None or not np.all(np.isfinite(cov)):
            return mid, mid
        amp = self.a * self.x_max ** (-self.b)
        s = x / self.x_max
        power = np.power(s, -self.b)
        grad = np.stack([power, -amp * power * np.log(s), np.ones_like(s)], axis=1)  # dL/d(A, b, c)
        se = np.sqrt(np.clip(np.einsum("ni,ij,nj->n", grad, np.asarray(cov), grad), 0.0, None))
        z = float(norm.ppf(0.5 + level / 2))
        with np.errstate(divide="ignore", invalid="ignore"):
            spread = np.exp(z * np.where(mid > 0, se / mid, np.inf))
        return mid / spread, mid * spread

    def summary(self, extrapolate: float = 4.0) -> PowerLawSummary:
        """The JSON: a, b, c, r², standard errors, and the predicted loss (with its band) at ``extrapolate``
        times the largest x."""
        at = self.x_max * extrapolate
        low, high = self.band(at)
        return {"a": self.a, "b": self.b, "c": self.c, "r2": self.r2, "points": self.points, "x_min": self.x_min,
                "x_max": self.x_max, "stderr": dict(self.stderr),
                "predicted": {"x": at, "factor": extrapolate, "loss": float(self.predict(at)),
                              "low": float(low[0]), "high": float(high[0])}}


def fit_power_law(x: np.ndarray | list[float], y: np.ndarray | list[float]) -> PowerLawFit:
    """Least-squares fit of L(x) = a·x^(−b) + c with a ≥ 0, 0 ≤ b ≤ 10 and 0 ≤ c ≤ min(L) (a loss has a
    floor at or below its smallest value). Points with x ≤ 0 or a non-finite value are left out."""
    import numpy as np
    from scipy.optimize import curve_fit

    x_all, y_all = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    keep = np.isfinite(x_all) & np.isfinite(y_all) & (x_all > 0)
    xv, yv = x_all[keep], y_all[keep]
    if len(np.unique(xv)) < MIN_POINTS:
        raise DataError(f"a power-law fit needs at least {MIN_POINTS} points at different x (have "
                        f"{len(np.unique(xv))}); train longer or log the metric more often")
    x_max = float(xv.max())
    xs = xv / x_max
    y_min = float(yv.min())
    c_max = max(y_min, 0.0)
    guesses = []
    for c0 in (0.0, 0.5 * c_max, 0.9 * c_max):
        d = yv - c0
        ok = d > 0
        if ok.sum() >= 2 and np.ptp(np.log(xs[ok])) > 0:
            slope, icept = np.polyfit(np.log(xs[ok]), np.log(d[ok]), 1)
            guesses.append([math.exp(icept), float(np.clip(-slope, 1e-3, 9.9)), c0])
    guesses.append([max(np.ptp(yv), 1e-6), 0.5, 0.5 * c_max])
    best = None
    for p0 in guesses:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                popt, pcov = curve_fit(power_law, xs, yv, p0=p0, bounds=([0, 0, 0], [np.inf, 10.0, c_max + 1e-12]),
                                       maxfev=20000)
        except (RuntimeError, ValueError):
            continue
        sse = float(np.sum((power_law(xs, *popt) - yv) ** 2))
        if best is None or sse < best[0]:
            best = (sse, popt, pcov)
    if best is None:
        raise DataError("the power-law fit did not converge on these points")
    sse, (amp, b, c), cov = best
    sst = float(np.sum((yv - yv.mean()) ** 2))
    r2 = 1.0 - sse / sst if sst > 0 else float("nan")
    a = float(amp * x_max ** b)
    se = np.sqrt(np.clip(np.diag(cov), 0, None)) if np.all(np.isfinite(cov)) else np.full(3, np.nan)
    se_a = float(abs(a) * math.hypot(se[0] / amp if amp else 0.0, math.log(x_max) * se[1]))
    return PowerLawFit(a=a, b=float(b), c=float(c), r2=float(r2), points=len(xv), x_min=float(xv.min()), x_max=x_max,
                       stderr={"a": se_a, "b": float(se[1]), "c": float(se[2])}, _cov=_band_cov(cov, c, c_max))


def _band_cov(cov: np.ndarray, c: float, c_max: float) -> np.ndarray:
    """The covariance the band uses: the fit's, except that a floor ``c`` pinned at a bound (0 or the smallest
    loss) is taken as known, so (A, b) get their covariance given c (the Schur complement). A Gaussian
    covariance for a parameter on its bound is meaningless; with it the band bulged in the data's middle."""
    import numpy as np

    cov = np.array(cov, dtype=float)
    tol = 1e-9 * max(1.0, abs(c_max))
    if not np.all(np.isfinite(cov)) or not (c <= tol or c >= c_max - tol) or cov[2, 2] <= 0:
        return cov
    ab = cov[:2, :2] - np.outer(cov[:2, 2], cov[2, :2]) / cov[2, 2]
    out = np.zeros((3, 3))
    out[:2, :2] = ab
    return out


def chinchilla_law(n: np.ndarray, d: np.ndarray, e: float, a: float, b: float, alpha: float,
                   beta: float) -> np.ndarray:
    """Hoffmann et al. 2022's L(N, D) = E + A/N^α + B/D^β (N parameters, D training tokens)."""
    import numpy as np

    return e + a * np.power(n, -alpha) + b * np.power(d, -beta)


@dataclass
class ChinchillaFit:
    """The fitted E, A, B, α, β of :func:`chinchilla_law`, the points used and the loss's r²."""

    e: float
    a: float
    b: float
    alpha: float
    beta: float
    r2: float
    points: int

    def predict(self, n: np.ndarray | float, d: np.ndarray | float) -> np.ndarray:
        import numpy as np

        return chinchilla_law(np.asarray(n, dtype=float), np.asarray(d, dtype=float), self.e, self.a, self.b,
                              self.alpha, self.beta)


def fit_chinchilla(n: np.ndarray | list[float], d: np.ndarray | list[float], loss: np.ndarray | list[float],
                   huber_delta: float = 1e-3) -> ChinchillaFit:
    """Fit L(N, D) = E + A/N^α + B/D^β as Hoffmann et al. 2022 (App. D.2) do: minimise the Huber loss (δ = 1e-3)
    of ``log L − LSE(a − α log N, b − β log D, e)`` (A = eᵃ, B = eᵇ, E = eᵉ) with L-BFGS from a grid of starts,
    keeping the best. Points with a non-positive or non-finite value are left out."""
    import itertools

    import numpy as np
    from scipy.optimize import minimize
    from scipy.special import logsumexp

    nv, dv, lv = (np.asarray(v, dtype=float) for v in (n, d, loss))
    keep = np.isfinite(nv) & np.isfinite(dv) & np.isfinite(lv) & (nv > 0) & (dv > 0) & (lv > 0)
    nv, dv, lv = nv[keep], dv[keep], lv[keep]
    if len(lv) < 6:
        raise DataError(f"a Chinchilla fit has 5 parameters and needs at least 6 points (have {len(lv)})")
    log_n, log_d, log_l = np.log(nv), np.log(dv), np.log(lv)

    def objective(p: np.ndarray) -> tuple[float, np.ndarray]:
        a, b, e, alpha, beta = p
        terms = np.stack([a - alpha * log_n, b - beta * log_d, np.full_like(log_n, e)])
        pred = logsumexp(terms, axis=0)
        r = pred - log_l
        small = np.abs(r) <= huber_delta
        value = float(np.sum(np.where(small, 0.5 * r ** 2, huber_delta * (np.abs(r) - 0.5 * huber_delta))))
        dr = np.where(small, r, huber_delta * np.sign(r))  # d huber / d pred
        w = np.exp(terms - pred) * dr  # d pred / d term, times the above
        grad = np.array([w[0].sum(), w[1].sum(), w[2].sum(), -(w[0] * log_n).sum(), -(w[1] * log_d).sum()])
        return value, grad

    best: tuple[float, np.ndarray] | None = None
    # a coarse version of the paper's grid of initialisations (theirs: 1,500 starts)
    for a0, b0, e0, al0, be0 in itertools.product((0.0, 5.0, 10.0), (0.0, 5.0, 10.0), (-1.0, 0.0, 1.0),
                                                  (0.0, 0.5), (0.0, 0.5)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = minimize(objective, np.array([a0, b0, e0, al0, be0]), jac=True, method="L-BFGS-B")
        if np.all(np.isfinite(res.x)) and (best is None or res.fun < best[0]):
            best = (float(res.fun), res.x)
    if best is None:
        raise DataError("the Chinchilla fit did not converge on these points")
    a, b, e, alpha, beta = best[1]
    fit = ChinchillaFit(e=math.exp(e), a=math.exp(a), b=math.exp(b), alpha=float(alpha), beta=float(beta),
                        r2=float("nan"), points=len(lv))
    resid = fit.predict(nv, dv) - lv
    sst = float(np.sum((lv - lv.mean()) ** 2))
    fit.r2 = 1.0 - float(np.sum(resid ** 2)) / sst if sst > 0 else float("nan")
    return fit
