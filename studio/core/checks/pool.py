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

Task = tuple[str, dict[str, Any]]  # a check's name and its overrides (its ``run``'s keyword arguments)


def _run_quietly(name: str, overrides: dict[str, Any]) -> CheckOutcome:
    return run_check(name, **overrides)


def run_tasks(tasks: list[Task], jobs: int = 1,
              progress_for: Callable[[str], Any] | None = None) -> Iterator[tuple[int, CheckOutcome]]:
    """(index into ``tasks``, outcome) as each finishes: the tasks of checks not marked exclusive ``jobs`` at a time
    in spawned processes, then the others one by one here. ``progress_for(name)`` gives a progress callback for a
    check run in this process (the pooled ones report none). A pool process that dies FAILs its check with a
    reason; the other outcomes still come."""
    progress_for = progress_for or (lambda name: None)
    pooled = [i for i, (name, _) in enumerate(tasks) if jobs > 1 and not CHECKS[name].exclusive]
    if pooled:
        # spawn, not fork: a forked copy of a process that has already run torch can hang in its thread pools
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=min(jobs, len(pooled)), mp_context=context) as pool:
            # the longest first (by budget), so that the last to finish is a short one and no core idles long
            longest_first = sorted(pooled, key=lambda i: -CHECKS[tasks[i][0]].budget_s)
            futures: dict[Future[CheckOutcome], int] = {pool.submit(_run_quietly, *tasks[i]): i
                                                        for i in longest_first}
            pending = set(futures)
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    index = futures[future]
                    try:
                        yield index, future.result()
                    except Exception as err:  # noqa: BLE001 - a worker that died: that check FAILs with the reason
                        yield index, CheckOutcome(CHECKS[tasks[index][0]], (), 0.0,
                                                  error=f"its process ended before it finished ({type(err).__name__}"
                                                        f": {err or 'no reason given'})")
    in_pool = set(pooled)
    for index, (name, overrides) in enumerate(tasks):
        if index not in in_pool:
            yield index, run_check(name, progress=progress_for(name), **overrides)


def run_checks(names: list[str], jobs: int = 1, overrides: dict[str, Any] | None = None,
               progress_for: Callable[[str], Any] | None = None) -> Iterator[CheckOutcome]:
    """The outcomes of ``names`` (each with the same ``overrides``) as each finishes: see :func:`run_tasks`."""
    for _, outcome in run_tasks([(name, dict(overrides or {})) for name in names], jobs, progress_for):
        yield outcome
