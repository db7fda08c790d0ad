"""The paper-check task (engine/tasks/paper_check.py): outcome dicts in order, progress per check, cancel, and
refusals before anything runs."""

from __future__ import annotations

import pytest

from studio.core.contracts.checks import CheckRequest
from studio.core.contracts.progress import Cancelled, Progress
from studio.core.errors import ConfigError
from studio.engine.tasks.paper_check import run


def test_runs_the_named_check_and_reports_its_progress() -> None:
    reports = []
    out = run(CheckRequest(("quadratic_gd_newton",), {"above": 0.9}), Progress(reports.append, interval=0.0))
    (outcome,) = out
    assert outcome["name"] == "quadratic_gd_newton" and outcome["verdict"] == "FAIL"  # 1.8 does not diverge
    assert [m["passed"] for m in outcome["measures"]] == [True, False, True]
    assert reports[-1].fraction == 1.0
    assert any(r.text.startswith("quadratic_gd_newton: racing") for r in reports)


def test_refuses_unknown_names_and_overrides_for_several_checks() -> None:
    with pytest.raises(ConfigError, match="no paper check named"):
        run(CheckRequest(("nope",)))
    with pytest.raises(ConfigError, match="exactly one"):
        run(CheckRequest(("quadratic_gd_newton", "scaling_laws"), {"seed": 1}))


def test_cancel_stops_before_the_next_check() -> None:
    with pytest.raises(Cancelled):
        run(CheckRequest(("quadratic_gd_newton", "scaling_laws")), Progress(cancelled=lambda: True))
