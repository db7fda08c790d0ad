"""Paper-check variants computed side by side: a test marked ``@pytest.mark.pooled_check(NAME, **overrides)`` (once
per variant it reads) gets them through the ``pooled_check`` fixture. The first such test computes every marked
variant of the tests selected, two at a time on two cores (``core/checks/pool.py``: each check on one torch thread,
so the numbers are those of ``run_check`` one after another; a check marked exclusive, which times processes, runs
alone). A variant read without its mark is computed on the spot."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "pooled_check(name, **overrides): a check variant the test reads through the "
                                       "pooled_check fixture, computed with the others side by side")


def _key(name: str, overrides: dict[str, Any]) -> str:
    return json.dumps([name, overrides], sort_keys=True)


@pytest.fixture(scope="session")
def _pooled_outcomes(request: pytest.FixtureRequest) -> dict[str, Any]:
    from studio.core.checks.pool import run_tasks

    tasks: dict[str, tuple[str, dict[str, Any]]] = {}
    for item in request.session.items:
        for mark in item.iter_markers("pooled_check"):
            tasks.setdefault(_key(mark.args[0], mark.kwargs), (mark.args[0], dict(mark.kwargs)))
    keys, todo = list(tasks), list(tasks.values())
    jobs = max(1, min(2, len(os.sched_getaffinity(0))))
    return {keys[index]: outcome for index, outcome in run_tasks(todo, jobs)}


@pytest.fixture
def pooled_check(_pooled_outcomes: dict[str, Any]) -> Callable[..., Any]:
    from studio.core.checks.catalog import run_check

    def get(name: str, **overrides: Any) -> Any:
        found = _pooled_outcomes.get(_key(name, overrides))
        return found if found is not None else run_check(name, **overrides)

    return get
