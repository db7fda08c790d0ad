"""Every paper check, found by name: one module per check in ``studio/core/checks/paper`` (torch-free at import);
the reproductions first, then the method checks."""

from __future__ import annotations

import importlib
import os
import pkgutil
import time
from typing import Any

from studio.core.checks import paper as paper_package
from studio.core.checks.base import CheckOutcome, PaperCheck, Reproduction
from studio.core.contracts.progress import Cancelled
from studio.core.demos.common import torch_threads
from studio.core.errors import ConfigError
from studio.core.targets import resolve_target


def _discover() -> dict[str, PaperCheck]:
    """The reproductions by name, then the method checks by name (listed apart wherever checks are listed)."""
    found: list[PaperCheck] = []
    for info in pkgutil.iter_modules(paper_package.__path__):
        module = importlib.import_module(f"{paper_package.__name__}.{info.name}")
        check = getattr(module, "CHECK", None)
        if isinstance(check, PaperCheck):
            found.append(check)
    return {c.name: c for c in sorted(found, key=lambda c: (c.is_method_check, c.name))}


CHECKS: dict[str, PaperCheck] = _discover()


def get_check(name: str) -> PaperCheck:
    try:
        return CHECKS[name]
    except KeyError:
        raise ConfigError(f"no paper check named {name!r}; there are: {', '.join(CHECKS)}") from None


def checks_for_demo(demo: str) -> list[PaperCheck]:
    """The checks a demo's "Paper check" button runs."""
    return [c for c in CHECKS.values() if demo in c.demos]


def run_check(name: str, progress: Any = None, **overrides: Any) -> CheckOutcome:
    """Run one check on one torch thread (a thread count changes the order of floating-point sums, and a second
    thread only spins on a shared 2-core CPU; the caller's setting comes back after); an exception inside it
    becomes a FAIL with the reason (a check never crashes a caller)."""
    check = get_check(name)
    started, cpu = time.perf_counter(), cpu_seconds()
    try:
        with torch_threads(1):  # the same numbers on every machine, and the other core left to the machine
            result: Reproduction = resolve_target(check.runner)(progress=progress, **overrides)
    except Cancelled:
        raise
    except Exception as err:  # noqa: BLE001 - reported as the check's failure, with its reason
        return CheckOutcome(check, (), time.perf_counter() - started, error=f"{type(err).__name__}: {err}",
                            cpu_seconds=cpu_seconds() - cpu)
    return CheckOutcome(check, tuple(result.measures), time.perf_counter() - started, dict(result.details),
                        cpu_seconds=cpu_seconds() - cpu)


def cpu_seconds() -> float:
    """CPU seconds used so far by this process and the child processes it has waited for (a check's ranks and
    workers): what a check costs, whatever else the machine is running."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system
