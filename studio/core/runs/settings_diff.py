"""Which settings differ between runs, and a setting's value as a person reads it: the primitives of the compare
table (core/runs/compare.py) and of the run names (core/runs/names.py, which formats values with them)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

# Settings that never describe a run (the threads asked for, 0 = automatic); left out of "what differs".
IGNORED_KEYS = frozenset({"hardware.threads"})
# What the launcher recorded about how the run ran (core/runs/store.record_settings): the CPU threads it used
# change a CPU run's numbers in the last digits, so they are a setting like any other. Runs from before it
# was recorded lack it; only runs that have it are compared on it.
CPU_THREADS_KEY = "hardware.cpu_threads"
CODE_KEYS = ("model.code", "data.code")  # the SHA-256 (12 digits) of a user file a run trained (core/usercode)
RECORDED_KEYS = frozenset({CPU_THREADS_KEY, *CODE_KEYS})
MISSING = None  # a setting a run does not have (another model's parameter)
SECTION_ORDER = ("data", "model", "optimizer", "schedule", "train", "hardware")


def key_order(key: str) -> tuple[int, str]:
    section = key.split(".", 1)[0]
    return (SECTION_ORDER.index(section) if section in SECTION_ORDER else len(SECTION_ORDER), key)


def differing_keys(params: Sequence[dict[str, Any]], ignore: frozenset[str] = IGNORED_KEYS) -> list[str]:
    """The settings whose value is not the same in all runs (missing in some counts as different),
    in section order (data, model, optimizer, schedule, train, hardware). One run: nothing differs."""
    if len(params) < 2:
        return []
    keys = set().union(*params) - ignore
    out = [k for k in keys if len({hashable(p.get(k, MISSING)) for p in params
                                   if k not in RECORDED_KEYS or k in p}) > 1]
    # a registry entry's name first: "optimizer.name" explains why "optimizer.momentum" differs
    return sorted(out, key=lambda k: (key_order(k)[0], not k.endswith(".name"), k))


def hashable(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def format_value(value: Any) -> str:
    """A setting or metric as a person reads it: 0.001, [256, 256], true, — for missing."""
    if value is MISSING:
        return "—"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "—" if not math.isfinite(value) else f"{value:.6g}"
    if isinstance(value, list):
        return "[" + ", ".join(format_value(v) for v in value) + "]"
    return str(value)
