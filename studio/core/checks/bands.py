"""Measures whose band carries how sure a number is: ``above``/``below``/``close_to``/``inside`` compare an
``Estimate`` (core/checks/stats.py: a mean over seeds or test items, its s.e. and one-sided 95 % margin) with a
band, and the band text names n, the s.e. and the margin, so every view that prints a check's band (the CLI, the
docs, the Paper checks view, a demo's panel) shows them. Torch-free."""

from __future__ import annotations

import math

from studio.core.checks.base import Measure
from studio.core.checks.stats import Estimate


def text(est: Estimate) -> str:
    """``6 seeds, s.e. 0.31, margin 0.66``."""
    return f"{est.n} {est.over}, s.e. {_fmt(est.se)}, margin {_fmt(est.margin)}"


def _fmt(value: float) -> str:
    if not math.isfinite(value):
        return "∞" if value > 0 else str(value)
    return f"{value:.3g}"


def above(label: str, est: Estimate, low: float, paper: str) -> Measure:
    """Passes when the mean is above ``low`` with 95 % confidence: mean − margin > ``low``."""
    band = f"mean − margin > {_fmt(low)} ({text(est)})"
    return Measure.holds(label, est.mean, est.finite and est.low > low, paper, band)


def below(label: str, est: Estimate, high: float, paper: str) -> Measure:
    """Passes when the mean is below ``high`` with 95 % confidence: mean + margin < ``high``."""
    band = f"mean + margin < {_fmt(high)} ({text(est)})"
    return Measure.holds(label, est.mean, est.finite and est.high < high, paper, band)


def close_to(label: str, est: Estimate, target: float, tolerance: float, paper: str) -> Measure:
    """Equivalence: passes when the one-sided 95 % interval lies within ``target`` ± ``tolerance``
    (|mean − target| + margin ≤ tolerance)."""
    band = f"|mean − {_fmt(target)}| + margin ≤ {_fmt(tolerance)} ({text(est)})"
    return Measure.holds(label, est.mean, est.finite and abs(est.mean - target) + est.margin <= tolerance, paper,
                         band)


def inside(label: str, est: Estimate, low: float, high: float, paper: str, what: str = "") -> Measure:
    """Passes when the mean lies in ``low … high`` (a band of what this set-up gives, ``what`` says whence); the
    s.e. is shown, not used."""
    band = f"mean in {_fmt(low)} … {_fmt(high)}" + (f", {what}" if what else "") + f" ({text(est)})"
    return Measure.holds(label, est.mean, est.finite and low <= est.mean <= high, paper, band)
