"""Seed groups: runs whose settings differ only in the seed (``train.seed``) — repeats of one experiment — form a
group, shown as one thing: the curves draw its mean with a band, the run list and Compare its mean ± std and n.

Settings that only say what a run records or keeps (``names.RECORDING``: metric_interval, checkpoints …) and
settings the launcher recorded (``settings_diff.RECORDED_KEYS``: the CPU threads it picked) do not split a group.
Runs with the very same settings (``… #2``) are repeats too. A group is named by the naming rule
(``core/runs/names.py``) with the seed left out: ``mlp · moons · adam lr=0.01 × 5 seeds``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from studio.core.errors import ConfigError
from studio.core.runs.names import RECORDING, base_name
from studio.core.runs.settings_diff import RECORDED_KEYS, hashable

if TYPE_CHECKING:
    from studio.core.maths.bands import Spread

SEED = "train.seed"
NOT_SETTINGS = frozenset({SEED, *(f"train.{k}" for k in RECORDING), *RECORDED_KEYS})
GROUP_PREFIX = "group:"  # a group's id: this and a short hash of its settings


def group_settings(params: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    """The settings that make a run the experiment it is: every one but the seed and what is only recorded."""
    return tuple(sorted((k, hashable(v)) for k, v in params.items() if k not in NOT_SETTINGS))


def group_id(params: Mapping[str, Any]) -> str:
    """A stable id for the group of runs with these settings (``group:`` and 12 hex digits)."""
    text = json.dumps(group_settings(params), default=str)
    return GROUP_PREFIX + hashlib.sha1(text.encode()).hexdigest()[:12]


def group_name(params: Mapping[str, Any], seeds: Sequence[Any]) -> str:
    """The naming rule's name without the seed, and how many runs: ``mlp · moons · adam lr=0.01 × 5 seeds`` (``× 3
    runs`` when some share a seed: repeats of the very same settings)."""
    unseeded = {k: v for k, v in params.items() if k != SEED}
    n = len(seeds)
    what = "seed" if len({hashable(s) for s in seeds}) == n else "run"
    return f"{base_name(unseeded)} × {n} {what}{'s' if n != 1 else ''}"


@dataclass(frozen=True)
class SeedGroup:
    """Runs that differ only in the seed, oldest first as given; ``seeds`` in the same order."""

    id: str
    name: str
    run_ids: tuple[str, ...]
    seeds: tuple[Any, ...]

    @property
    def n(self) -> int:
        return len(self.run_ids)


def seed_groups(params: Mapping[str, Mapping[str, Any]], min_size: int = 2) -> list[SeedGroup]:
    """The groups of at least ``min_size`` runs among ``params`` (``run_id → section.key → value``, in the order
    the runs are to be listed), in the order of their first run."""
    members: dict[str, list[str]] = {}
    for run_id, p in params.items():
        members.setdefault(group_id(p), []).append(run_id)
    out = []
    for gid, ids in members.items():
        if len(ids) >= min_size:
            seeds = tuple(params[r].get(SEED) for r in ids)
            out.append(SeedGroup(gid, group_name(params[ids[0]], seeds), tuple(ids), seeds))
    return out


def group_of(groups: Iterable[SeedGroup]) -> dict[str, SeedGroup]:
    """``run_id → its group`` for every run in one of ``groups``."""
    return {run_id: g for g in groups for run_id in g.run_ids}


def summary_spreads(summaries: Sequence[Mapping[str, Any]], keys: Iterable[str]) -> dict[str, Spread]:
    """The spread over a group's runs of each summary number in ``keys`` that at least one run has."""
    from studio.core.maths.bands import spread  # numpy: not at the window's start (the run list imports this)

    out = {}
    for key in keys:
        found = spread([s.get(key) for s in summaries])
        if found is not None:
            out[key] = found
    return out


def parse_seeds(text: str) -> list[int]:
    """``0,1,2,3,4`` or a range ``0-4`` (both ends included) as whole seeds, each once; ConfigError otherwise."""
    from studio.core.config.run_config import TRAIN_HELP

    _, low, high = TRAIN_HELP["seed"]
    assert low is not None and high is not None
    seeds: list[int] = []
    for part in (p.strip() for p in str(text).split(",")):
        if not part:
            continue
        first, dash, last = part.partition("-")
        try:
            values = range(int(first), int(last) + 1) if dash and first else [int(part)]
        except ValueError:
            raise ConfigError(f"seeds are whole numbers like 0,1,2,3,4 or 0-4; got {text!r}") from None
        if dash and first and int(last) < int(first):
            raise ConfigError(f"the seed range {part!r} is empty: write the lower seed first (e.g. 0-4)")
        for seed in values:
            if not low <= seed <= high:
                raise ConfigError(f"a seed is between {low:g} and {high:g}; got {seed}")
            if seed not in seeds:
                seeds.append(seed)
    if not seeds:
        raise ConfigError(f"give at least one seed, e.g. 0,1,2,3,4; got {text!r}")
    if len(seeds) > 1000:
        raise ConfigError(f"{len(seeds)} seeds is too many; 1000 at most")
    return seeds
