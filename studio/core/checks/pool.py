"""Several paper checks at once: each check already runs on one torch thread, so on a machine with N free cores N
checks run side by side in N processes and give the same numbers as one after another. A check marked
``exclusive`` (it starts processes and compares their times) runs afterwards in this process, alone."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any

from studio.core.checks.base import CheckOutcome
from studio.core.checks.catalog import CHECKS, run_check


def _run_quietly(name: str, overrides: dict[str, Any]) -> CheckOutcome:
    return run_check(name, **overrides)


def run_checks(names: list[str], jobs: int = 1, overrides: dict[str, Any] | None = None,
               progress_for: Callable[[str], Any] | None = None) -> Iterator[CheckOutcome]:
    """The outcomes of ``names`` as each finishes (not in ``names``' order when ``jobs`` > 1). ``progress_for(name)``
    gives a progress callback for a check run in this process (the pooled ones report none)."""
    overrides = overrides or {}
    progress_for = progress_for or (lambda name: None)
    pooled = [n for n in names if not CHECKS[n].exclusive] if jobs > 1 else []
    alone = [n for n in names if n not in pooled]
    if pooled:
        # spawn, not fork: a forked copy of a process that has already run torch can hang in its thread pools
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=min(jobs, len(pooled)), mp_context=context) as pool:
            futures: dict[Future[CheckOutcome], str] = {pool.submit(_run_quietly, n, overrides): n for n in pooled}
            pending = set(futures)
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    try:
                        yield future.result()
                    except Exception as err:  # noqa: BLE001 - a worker that died: that check FAILs with the reason
                        yield CheckOutcome(CHECKS[futures[future]], (), 0.0,
                                           error=f"its process ended before it finished ({type(err).__name__}: "
                                                 f"{err or 'no reason given'})")
    for name in alone:
        yield run_check(name, progress=progress_for(name), **overrides)
