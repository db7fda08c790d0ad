"""The data of a paper check: the claim and the paper's numbers, our measured numbers and their bands."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any


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


def _fmt(value: float | None) -> str:
    if value is None or not math.isfinite(value):
        return "n/a" if value is None else str(value)
    return f"{value:.4g}"


@dataclass(frozen=True)
class Measure:
    """One compared quantity: our number, the paper's (as published, in words), the band ours must be in."""

    label: str
    ours: float | None
    paper: str
    band: str
    passed: bool

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

    def ours_text(self) -> str:
        return _fmt(self.ours)

    def to_dict(self) -> dict[str, Any]:
        ours = self.ours if self.ours is None or math.isfinite(self.ours) else None
        return {"label": self.label, "ours": ours, "paper": self.paper, "band": self.band, "passed": self.passed}


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

    @property
    def passed(self) -> bool:
        return not self.error and bool(self.measures) and all(m.passed for m in self.measures)

    @property
    def verdict(self) -> str:
        return "PASS" if self.passed else "FAIL"

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.check.name, "verdict": self.verdict, "passed": self.passed, "claim": self.check.claim,
                "paper": self.check.paper, "paper_setup": self.check.paper_setup, "our_setup": self.check.our_setup,
                "seconds": round(self.seconds, 2), "measures": [m.to_dict() for m in self.measures],
                "error": self.error}
