"""The run list's word on seed groups, without Qt: for each run in a group (runs that differ only in the seed,
``core/runs/seed_groups.py``) what its accuracy cells' tooltips say — the group's mean ± std and n."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from studio.core.runs.seed_groups import seed_groups, summary_spreads

SPREAD_KEYS = ("test_acc", "val_acc")  # the run list's number columns that a group's spread is told for


def group_tips(params: Mapping[str, Mapping[str, Any]], summaries: Mapping[str, Mapping[str, Any]]
               ) -> dict[str, dict[str, str]]:
    """``run → summary key → tooltip`` (``seed group “name”: 0.9120 ± 0.0040 (n=5)``) for the runs in a group."""
    out: dict[str, dict[str, str]] = {}
    for g in seed_groups(params):
        spreads = summary_spreads([summaries.get(r, {}) for r in g.run_ids], SPREAD_KEYS)
        seeds = ", ".join(str(x) for x in sorted(g.seeds, key=seed_order))
        tips = {k: f"seed group “{g.name}”: {s.text()} — over seeds {seeds}" for k, s in spreads.items()}
        for run_id in g.run_ids:
            out[run_id] = tips
    return out


def seed_order(seed: Any) -> tuple[int, float, str]:
    """Seeds in numeric order; any other value after them."""
    number = isinstance(seed, (int, float)) and not isinstance(seed, bool)
    return (0, float(seed), "") if number else (1, 0.0, str(seed))
