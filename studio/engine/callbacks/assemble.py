"""The assembler: a run's callbacks in the order the loop calls them, from what each declares
(``engine/callbacks/base.py``), after checking those declarations.

Sorted by stage, stably (callbacks of one stage keep the order they were given in). Refused, with one sentence: a
stage that is not in ``STAGES``, a callback with state but no state key (or a key but no state), two callbacks
whose state would share one key in a checkpoint, and a callback placed before one its ``runs_after`` names.
"""

from __future__ import annotations

from collections.abc import Iterable

from studio.core.errors import RunFailed
from studio.engine.callbacks.base import STAGES, Callback

_RANK = {stage: i for i, stage in enumerate(STAGES)}


class CallbackDeclarationError(RunFailed):
    """A callback's declared stage, state key or ``runs_after`` cannot hold."""


def assemble(callbacks: Iterable[Callback]) -> list[Callback]:
    """``callbacks`` sorted by their declared stage (stable); CallbackDeclarationError when a declaration is broken."""
    given = list(callbacks)
    for cb in given:
        _check_stage(cb)
        _check_state(cb)
    ordered = sorted(given, key=lambda cb: _RANK[cb.stage])
    _check_unique_keys(ordered)
    _check_runs_after(ordered)
    return ordered


def _name(cb: Callback) -> str:
    return type(cb).__name__


def _check_stage(cb: Callback) -> None:
    if cb.stage not in _RANK:
        declared = f"declares the stage {cb.stage!r}" if cb.stage else "declares no stage"
        raise CallbackDeclarationError(f"callback {_name(cb)} {declared}; a stage is one of {', '.join(STAGES)}")


def _check_state(cb: Callback) -> None:
    stateful = hasattr(cb, "state_dict")
    if stateful and not cb.state_key:
        raise CallbackDeclarationError(f"callback {_name(cb)} keeps state (state_dict) but declares no state_key, "
                                       "so checkpoints would lose it")
    if cb.state_key and not stateful:
        raise CallbackDeclarationError(f"callback {_name(cb)} declares the state_key {cb.state_key!r} but has no "
                                       "state_dict to save under it")


def _check_unique_keys(ordered: list[Callback]) -> None:
    seen: dict[str, Callback] = {}
    for cb in ordered:
        if not cb.state_key:
            continue
        if cb.state_key in seen:
            raise CallbackDeclarationError(
                f"callbacks {_name(seen[cb.state_key])} and {_name(cb)} would both keep their checkpoint state "
                f"under {cb.state_key!r}; give each its own state_key")
        seen[cb.state_key] = cb


def _check_runs_after(ordered: list[Callback]) -> None:
    for i, cb in enumerate(ordered):
        for later in ordered[i + 1:]:
            needed = next((c for c in cb.runs_after if isinstance(later, c)), None)
            if needed is None:
                continue
            where = (f"both are in the stage {cb.stage!r} and it was given first" if later.stage == cb.stage else
                     f"its stage {cb.stage!r} comes before {later.stage!r}")
            raise CallbackDeclarationError(f"callback {_name(cb)} must run after {_name(later)} (runs_after "
                                           f"{needed.__name__}), but {where}")
