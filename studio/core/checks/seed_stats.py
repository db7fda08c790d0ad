"""Statistics for the paper checks of issue 37 parts 2–6 (BERT, transfer, LAMB, ViT, precision): a number measured
n times (over seeds, test items) as its mean, standard error and one-sided 95 % margin, and the ``Measure`` that
compares it with a band while printing how sure it is.

Written apart from ``base`` on purpose: the statistics rework of the older checks lands in ``base`` separately; the
names here (``Estimate``, ``over_seeds``, ``binomial``, ``paired``) follow it so the two can become one module.

- ``over_seeds(values)``: the mean of independent repeats; s.e. = sample s.d. / √n; margin with Student's t at
  n − 1 degrees of freedom (one seed: no s.e., an infinite margin: one seed proves nothing).
- ``binomial(p, n)``: an accuracy on n test items, s.e. √(p(1 − p)/n), margin z = 1.645.
- ``paired(a, b)``: the mean of a[i] − b[i] (two set-ups on the same seed, or two models item by item).
- ``above``/``below``/``close_to``/``inside``: a ``Measure`` whose band text carries n, the s.e. and the margin,
  so every view that prints a check's band (the CLI, the docs, the Paper checks view, a demo's panel) shows them.

Torch-free: plain floats.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from studio.core.checks.base import Measure

Z95 = 1.645  # one-sided 95 % of the normal distribution
# one-sided 95 % quantiles of Student's t, 1 … 30 degrees of freedom
_T95 = (6.314, 2.920, 2.353, 2.132, 2.015, 1.943, 1.895, 1.860, 1.833, 1.812, 1.796, 1.782, 1.771, 1.761, 1.753,
        1.746, 1.740, 1.734, 1.729, 1.725, 1.721, 1.717, 1.714, 1.711, 1.708, 1.706, 1.703, 1.701, 1.699, 1.697)


def t95(dof: int) -> float:
    """The one-sided 95 % critical value of Student's t with ``dof`` degrees of freedom (∞ for none)."""
    if dof < 1:
        return math.inf
    return _T95[dof - 1] if dof <= len(_T95) else Z95


@dataclass(frozen=True)
class Estimate:
    """``mean`` ± ``se`` from ``n`` measurements of what ``over`` names; ``crit`` × ``se`` is the one-sided 95 %
    margin; ``values``: the repeats themselves (over seeds), for the record."""

    mean: float
    se: float
    n: int
    over: str
    crit: float
    values: tuple[float, ...] = ()

    @property
    def margin(self) -> float:
        if self.se == 0:
            return 0.0
        return self.crit * self.se if math.isfinite(self.se) else math.inf

    @property
    def low(self) -> float:
        return self.mean - self.margin

    @property
    def high(self) -> float:
        return self.mean + self.margin

    @property
    def finite(self) -> bool:
        return math.isfinite(self.mean)

    def scaled(self, factor: float) -> Estimate:
        """The same estimate in other units (× 100: points)."""
        return Estimate(self.mean * factor, self.se * abs(factor), self.n, self.over, self.crit,
                        tuple(v * factor for v in self.values))

    def text(self) -> str:
        """``n seeds, s.e. 0.31, margin 0.66``."""
        return f"{self.n} {self.over}, s.e. {_fmt(self.se)}, margin {_fmt(self.margin)}"

    def to_dict(self) -> dict[str, Any]:
        def plain(x: float) -> float | None:
            return x if math.isfinite(x) else None

        return {"mean": plain(self.mean), "se": plain(self.se), "n": self.n, "over": self.over,
                "margin": plain(self.margin), "values": [plain(v) for v in self.values]}


def over_seeds(values: Iterable[float], over: str = "seeds") -> Estimate:
    """The mean of independent repeats and its s.e. (sample s.d. / √n); the margin uses Student's t."""
    xs = tuple(float(v) for v in values)
    n = len(xs)
    if n == 0 or not all(math.isfinite(x) for x in xs):
        return Estimate(math.nan, math.inf, n, over, math.inf, xs)
    mean = sum(xs) / n
    if n == 1:
        return Estimate(mean, math.inf, 1, over, math.inf, xs)
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
    return Estimate(mean, sd / math.sqrt(n), n, over, t95(n - 1), xs)


def binomial(p: float, n: int, over: str = "test items") -> Estimate:
    """An accuracy ``p`` measured on ``n`` test items: s.e. √(p(1 − p)/n), margin z = 1.645."""
    if n <= 0 or not math.isfinite(p):
        return Estimate(math.nan, math.inf, max(n, 0), over, Z95)
    return Estimate(p, math.sqrt(max(p * (1 - p), 0.0) / n), n, over, Z95)


def paired(a: Sequence[float], b: Sequence[float], over: str = "seeds") -> Estimate:
    """The mean of ``a[i] − b[i]`` (two set-ups on the same seed) and its s.e. over the pairs."""
    if len(a) != len(b):
        raise ValueError(f"paired values need equal lengths; got {len(a)} and {len(b)}")
    return over_seeds((float(x) - float(y) for x, y in zip(a, b, strict=True)), over)


def seeds_of(first: int, count: int) -> tuple[int, ...]:
    """The seeds a check repeats over: ``first``, ``first`` + 1, … (a held-out variant starts elsewhere)."""
    return tuple(range(first, first + count))


def _fmt(value: float) -> str:
    if not math.isfinite(value):
        return "∞" if value > 0 else str(value)
    return f"{value:.3g}"


def above(label: str, est: Estimate, low: float, paper: str) -> Measure:
    """Passes when the mean is above ``low`` with 95 % confidence: mean − margin > ``low``."""
    band = f"mean − margin > {_fmt(low)} ({est.text()})"
    return Measure.holds(label, est.mean, est.finite and est.low > low, paper, band)


def below(label: str, est: Estimate, high: float, paper: str) -> Measure:
    """Passes when the mean is below ``high`` with 95 % confidence: mean + margin < ``high``."""
    band = f"mean + margin < {_fmt(high)} ({est.text()})"
    return Measure.holds(label, est.mean, est.finite and est.high < high, paper, band)


def close_to(label: str, est: Estimate, target: float, tolerance: float, paper: str) -> Measure:
    """Equivalence: passes when the one-sided 95 % interval lies within ``target`` ± ``tolerance``
    (|mean − target| + margin ≤ tolerance)."""
    band = f"|mean − {_fmt(target)}| + margin ≤ {_fmt(tolerance)} ({est.text()})"
    return Measure.holds(label, est.mean, est.finite and abs(est.mean - target) + est.margin <= tolerance, paper,
                         band)


def inside(label: str, est: Estimate, low: float, high: float, paper: str, what: str = "") -> Measure:
    """Passes when the mean lies in ``low … high`` (a band of what this set-up gives, ``what`` says whence); the
    s.e. is shown, not used."""
    band = f"mean in {_fmt(low)} … {_fmt(high)}" + (f", {what}" if what else "") + f" ({est.text()})"
    return Measure.holds(label, est.mean, est.finite and low <= est.mean <= high, paper, band)
