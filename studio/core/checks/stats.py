"""The statistics of a paper check: a number measured n times (over seeds, test images or directions) as its
mean, standard error and the one-sided 95 % critical value its margin uses.

- ``over_seeds(values)``: the mean of independent repeats (one per seed), s.e. = sample s.d. / √n, margin with
  Student's t at n − 1 degrees of freedom (few seeds: a wide margin; one seed: no margin at all, s.e. = ∞).
- ``binomial(p, n)``: an accuracy on a test set of n items, s.e. = √(p(1 − p)/n), margin z = 1.645.
- ``paired(a, b)``: two models scored item by item on one test set (1/0 per item): the mean difference a − b and
  its paired s.e. (the items both get right or both get wrong do not count as noise).

Torch-free (plain floats); every check's ``Measure`` takes an ``Estimate`` (``base.Measure.above`` and friends).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

Z95 = 1.645  # one-sided 95 % of the normal distribution
# one-sided 95 % quantiles of Student's t, 1 … 30 degrees of freedom
_T95 = (6.314, 2.920, 2.353, 2.132, 2.015, 1.943, 1.895, 1.860, 1.833, 1.812, 1.796, 1.782, 1.771, 1.761, 1.753,
        1.746, 1.740, 1.734, 1.729, 1.725, 1.721, 1.717, 1.714, 1.711, 1.708, 1.706, 1.703, 1.701, 1.699, 1.697)


def short(x: float | None) -> str:
    """A standard error or a margin as people read it: two significant digits (0.82, 1.8, 16, 1800)."""
    if x is None or not math.isfinite(x):
        return "n/a" if x is None else str(x)
    if x == 0:
        return "0"
    digits = 1 - math.floor(math.log10(abs(x)))
    return f"{round(x, digits):.{max(digits, 0)}f}"


def t95(dof: int) -> float:
    """The one-sided 95 % critical value of Student's t with ``dof`` degrees of freedom (∞ for none)."""
    if dof < 1:
        return math.inf
    return _T95[dof - 1] if dof <= len(_T95) else Z95


@dataclass(frozen=True)
class Estimate:
    """``mean`` ± ``se`` from ``n`` measurements of what ``over`` names ("seeds", "test images"); ``crit`` × ``se``
    is the one-sided 95 % margin; ``values``: the repeats themselves (over seeds), for the record."""

    mean: float
    se: float
    n: int
    over: str
    crit: float
    values: tuple[float, ...] = ()

    @property
    def margin(self) -> float:
        """The one-sided 95 % margin (∞ when there is no s.e.: a single seed proves nothing)."""
        if self.se == 0:
            return 0.0
        return self.crit * self.se if math.isfinite(self.se) else math.inf

    @property
    def low(self) -> float:
        """The one-sided 95 % lower confidence bound of the mean."""
        return self.mean - self.margin

    @property
    def high(self) -> float:
        """The one-sided 95 % upper confidence bound of the mean."""
        return self.mean + self.margin

    @property
    def finite(self) -> bool:
        return math.isfinite(self.mean)

    def scaled(self, factor: float) -> Estimate:
        """The same estimate in other units (e.g. × 100: points)."""
        return Estimate(self.mean * factor, self.se * abs(factor), self.n, self.over, self.crit,
                        tuple(v * factor for v in self.values))

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


def binomial(p: float, n: int, over: str = "test images") -> Estimate:
    """An accuracy ``p`` measured on ``n`` test items: s.e. √(p(1 − p)/n), margin z = 1.645."""
    if n <= 0 or not math.isfinite(p):
        return Estimate(math.nan, math.inf, max(n, 0), over, Z95)
    return Estimate(p, math.sqrt(max(p * (1 - p), 0.0) / n), n, over, Z95)


def paired(a: Sequence[float], b: Sequence[float], over: str = "test images") -> Estimate:
    """The mean of ``a[i] − b[i]`` (e.g. two models' 1/0 correctness per test image) and its paired s.e."""
    if len(a) != len(b):
        raise ValueError(f"paired scores need equal lengths; got {len(a)} and {len(b)}")
    d = [float(x) - float(y) for x, y in zip(a, b, strict=True)]
    n = len(d)
    if n < 2:
        return Estimate(math.nan, math.inf, n, over, Z95)
    mean = sum(d) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1))
    return Estimate(mean, sd / math.sqrt(n), n, over, t95(n - 1))


def seeds_of(first: int, count: int) -> tuple[int, ...]:
    """The seeds a check repeats over: ``first``, ``first`` + 1, … (a held-out variant starts elsewhere)."""
    return tuple(range(first, first + count))


def repeat(run_one: Callable[[int, Any], dict[str, Any]], seeds: Sequence[int],
           progress: Any = None) -> list[dict[str, Any]]:
    """``run_one(seed, sub_progress)`` for every seed, the progress split evenly; their results in seed order."""
    out = []
    for i, seed in enumerate(seeds):
        def sub(fraction: float, text: str, i: int = i, seed: int = seed) -> None:
            if progress is not None:
                progress((i + fraction) / len(seeds), f"seed {seed} ({i + 1}/{len(seeds)}): {text}")

        out.append(run_one(seed, sub if progress is not None else None))
    return out
