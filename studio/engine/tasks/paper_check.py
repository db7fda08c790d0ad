"""The paper checks as a background job (``engine/tasks.PAPER_CHECK``): the checks of a ``CheckRequest`` one
after the other, progress per check (its share of the bar, its own text), cancellable between and inside
checks; the result is one outcome dict per check. Torch-free at import: each check imports what it runs."""

from __future__ import annotations

from typing import Any, cast

from studio.core.contracts.checks import CheckRequest, OutcomeDict
from studio.core.contracts.progress import Progress, as_progress
from studio.core.errors import ConfigError


def run(request: CheckRequest, progress: Any = None) -> list[OutcomeDict]:
    """Run each named check (an unknown name or overrides with several names: ConfigError before any runs)."""
    from studio.core.checks.catalog import get_check, run_check

    names = list(request.names)
    for name in names:
        get_check(name)
    if request.overrides and len(names) != 1:
        raise ConfigError("overrides change one check's set-up: name exactly one check")
    bar: Progress = as_progress(progress)
    outcomes: list[OutcomeDict] = []
    for i, name in enumerate(names):
        bar.check()
        prefix = f"{name} ({i + 1}/{len(names)})" if len(names) > 1 else name
        part = bar.span(i / len(names), (i + 1) / len(names))

        def report(fraction: float, text: str = "", part: Any = part, prefix: str = prefix) -> None:
            part(fraction, f"{prefix}: {text}" if text else prefix)

        report(0.0, "starting")
        outcome = run_check(name, progress=report, **request.overrides)
        outcomes.append(cast(OutcomeDict, outcome.to_dict()))
    bar(1.0, "done")
    return outcomes
