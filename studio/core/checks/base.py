"""The data of a paper check: the claim and the paper's numbers, our measured numbers and their bands."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from studio.core.checks.stats import Estimate, short

REPRODUCTION = "reproduction"  # a published claim measured on a scaled-down set-up
METHOD_CHECK = "method check"  # Studio's own method (a fitter) run on data whose answer is known: not a paper's claim
KINDS = (REPRODUCTION, METHOD_CHECK)


@dataclass(frozen=True)
class PaperCheck:
    """One published claim Studio reproduces at small scale on the CPU.

    ``runner`` is ``"module:function"``, called as ``function(progress=None, **overrides) -> Reproduction``.
    """

    name: str  # stable id: ``studio check NAME``
    claim: str  # the claim in one sentence, as the demo panel prints it
    paper: str  # the citation
    paper_setup: str  # their set-up and their number(s), in words
    our_setup: str  # our set-up, and what was scaled down from theirs
    runner: str
    demos: tuple[str, ...] = ()  # demo panels whose "Paper check" button runs this check
    budget_s: float = 120.0  # the wall time it is meant to take at most on a 2-core CPU
    # the demo's parameters that show the check's set-up in the Teaching lab (the panel's "Show this set-up")
    preset: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)
    kind: str = REPRODUCTION  # REPRODUCTION or METHOD_CHECK (listed and printed apart)
    # it starts processes and compares their times: ``studio check --jobs N`` runs it with no other check beside it
    exclusive: bool = False

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"{self.name}: kind must be one of {KINDS}; got {self.kind!r}")

    @property
    def is_method_check(self) -> bool:
        return self.kind == METHOD_CHECK


def _fmt(value: float | None) -> str:
    if value is None or not math.isfinite(value):
        return "n/a" if value is None else str(value)
    return f"{value:.4g}"


@dataclass(frozen=True)
class Measure:
    """One compared quantity: our number, the paper's (as published, in words), the band ours must be in.

    A measure with statistics (``above``, ``below``, ``close_to``, ``inside``) also carries its ``estimate``: ``ours``
    is then the mean, and ``se``, ``n`` (what it counts: ``over``) and ``margin`` (the one-sided 95 % margin the band
    takes off or adds) say how sure it is."""

    label: str
    ours: float | None
    paper: str
    band: str
    passed: bool
    estimate: Estimate | None = None
    uses_margin: bool = False  # the band adds or takes off the estimate's margin (``inside`` does not)

    @property
    def n(self) -> int:
        return self.estimate.n if self.estimate else 1

    @property
    def over(self) -> str:
        return self.estimate.over if self.estimate else ""

    @property
    def se(self) -> float | None:
        return self.estimate.se if self.estimate else None

    @property
    def margin(self) -> float | None:
        return self.estimate.margin if self.estimate else None

    @classmethod
    def at_least(cls, label: str, ours: float | None, low: float, paper: str) -> Measure:
        ok = ours is not None and math.isfinite(ours) and ours >= low
        return cls(label, ours, paper, f"≥ {_fmt(low)}", ok)

    @classmethod
    def at_most(cls, label: str, ours: float | None, high: float, paper: str) -> Measure:
        ok = ours is not None and math.isfinite(ours) and ours <= high
        return cls(label, ours, paper, f"≤ {_fmt(high)}", ok)

    @classmethod
    def within(cls, label: str, ours: float | None, low: float, high: float, paper: str) -> Measure:
        ok = ours is not None and math.isfinite(ours) and low <= ours <= high
        return cls(label, ours, paper, f"{_fmt(low)} … {_fmt(high)}", ok)

    @classmethod
    def holds(cls, label: str, ours: float | None, ok: bool, paper: str, band: str) -> Measure:
        """A yes/no criterion described by ``band`` (e.g. "large batch lower"), ``ours`` the number it is about."""
        return cls(label, ours, paper, band, bool(ok))

    @classmethod
    def above(cls, label: str, est: Estimate, low: float, paper: str) -> Measure:
        """Passes when the mean is above ``low`` with 95 % confidence: mean − margin > ``low``."""
        return cls(label, est.mean, paper, f"mean − {_crit(est)} s.e. > {_fmt(low)}",
                   est.finite and est.low > low, est, True)

    @classmethod
    def below(cls, label: str, est: Estimate, high: float, paper: str) -> Measure:
        """Passes when the mean is below ``high`` with 95 % confidence: mean + margin < ``high``."""
        return cls(label, est.mean, paper, f"mean + {_crit(est)} s.e. < {_fmt(high)}",
                   est.finite and est.high < high, est, True)

    @classmethod
    def close_to(cls, label: str, est: Estimate, target: float, tolerance: float, paper: str) -> Measure:
        """Equivalence: passes when the whole 95 % interval lies within ``target`` ± ``tolerance``
        (|mean − target| + margin ≤ tolerance)."""
        ok = est.finite and abs(est.mean - target) + est.margin <= tolerance
        band = f"|mean − {_fmt(target)}| + {_crit(est)} s.e. ≤ {_fmt(tolerance)}"
        return cls(label, est.mean, paper, band, ok, est, True)

    @classmethod
    def inside(cls, label: str, est: Estimate, low: float, high: float, paper: str, what: str = "") -> Measure:
        """Passes when the mean lies in ``low … high`` (a band of what the set-up gives; ``what`` says where the
        band comes from); the s.e. is shown, not used."""
        band = f"mean in {_fmt(low)} … {_fmt(high)}" + (f" ({what})" if what else "")
        return cls(label, est.mean, paper, band, est.finite and low <= est.mean <= high, est)

    def ours_text(self) -> str:
        """The number; with statistics ``mean ± s.e. (n seeds, margin m)``."""
        if self.estimate is None or self.ours is None or not math.isfinite(self.ours):
            return _fmt(self.ours)
        return f"{_fmt(self.ours)} ± {short(self.estimate.se)} ({self.stats_text()})"

    def stats_text(self) -> str:
        """``5 seeds, margin 0.42`` (empty without statistics)."""
        if self.estimate is None:
            return ""
        margin = f", margin {short(self.estimate.margin)}" if self.uses_margin else ""
        return f"{self.estimate.n} {self.estimate.over}{margin}"

    def to_dict(self) -> dict[str, Any]:
        ours = self.ours if self.ours is None or math.isfinite(self.ours) else None
        out: dict[str, Any] = {"label": self.label, "ours": ours, "paper": self.paper, "band": self.band,
                               "passed": self.passed}
        if self.estimate is not None:
            stats = self.estimate.to_dict()
            out.update({"se": stats["se"], "n": stats["n"], "over": stats["over"],
                        "margin": stats["margin"] if self.uses_margin else None, "values": stats["values"]})
        return out


def _crit(est: Estimate) -> str:
    """The critical value as the band prints it: ``2.13`` (t, 4 d.o.f.), ``1.645`` (z), ``∞`` (one seed)."""
    return "∞ ×" if not math.isfinite(est.crit) else f"{est.crit:.4g} ×"


@dataclass(frozen=True)
class Reproduction:
    """What a check's ``run`` returns: the measures, and JSON-able details (curves, per-run numbers) for a view."""

    measures: tuple[Measure, ...]
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class CheckOutcome:
    """A finished check: PASS when every measure is in its band."""

    check: PaperCheck
    measures: tuple[Measure, ...]
    seconds: float
    details: dict[str, Any] = field(default_factory=dict)
    error: str = ""  # a check that could not run (bad data, an exception) fails with this sentence
    cpu_seconds: float = 0.0  # its CPU time, child processes included (on a busy machine the wall time is longer)

    @property
    def passed(self) -> bool:
        return not self.error and bool(self.measures) and all(m.passed for m in self.measures)

    @property
    def verdict(self) -> str:
        return "PASS" if self.passed else "FAIL"

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.check.name, "kind": self.check.kind, "verdict": self.verdict, "passed": self.passed,
                "claim": self.check.claim,
                "paper": self.check.paper, "paper_setup": self.check.paper_setup, "our_setup": self.check.our_setup,
                "seconds": round(self.seconds, 2), "cpu_seconds": round(self.cpu_seconds, 2),
                "measures": [m.to_dict() for m in self.measures],
                "error": self.error}
