"""The paper checks as a background task (``engine/tasks/paper_check.py``): which checks to run, with which
overrides; the result is one ``CheckOutcome.to_dict()`` per check, in order. Torch-free."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypedDict


@dataclass(frozen=True)
class CheckRequest:
    """Run the paper checks ``names`` (``core/checks.CHECKS``) in order; ``overrides`` change the set-up of a
    single check (keyword arguments of its ``run``) and are refused with several names."""

    names: tuple[str, ...]
    overrides: dict[str, Any] = field(default_factory=dict)


class MeasureDict(TypedDict):
    label: str
    ours: float | None
    paper: str
    band: str
    passed: bool


class OutcomeDict(TypedDict):
    """``CheckOutcome.to_dict()``: one finished check."""

    name: str
    verdict: str  # "PASS" or "FAIL"
    passed: bool
    claim: str
    paper: str
    paper_setup: str
    our_setup: str
    seconds: float
    measures: list[MeasureDict]
    error: str
