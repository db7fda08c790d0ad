"""Run names a person can tell apart: each run named by the settings that differ between the runs shown
(``sgd lr=0.05 · batch 256`` against ``adam lr=0.001 · batch 128``), built on ``settings_diff.differing_keys``.

A name the person gave (``RunStore.rename``, ``launch(name=…)``, a queued sweep's name) is kept as it is;
only the automatic ``model · optimizer · data`` names are replaced. Runs that would still share a name (the same
config trained twice) are numbered in the order they were made: ``… · adam`` and ``… · adam #2``.
"""

from __future__ import annotations

from typing import Any

from studio.core.runs.settings_diff import differing_keys, format_value

MAX_PARTS = 4  # more differing settings than this: the first four and "…"
# [train] settings read better as words
TRAIN_WORDS = {"batch_size": "batch {}", "epochs": "{} epochs", "seed": "seed {}"}
REGISTRY_SECTIONS = ("data", "model", "optimizer", "schedule")
_SECTIONS = ("optimizer", "schedule", "train", "model", "data", "hardware")  # the order a name tells them


def automatic_name(params: dict[str, Any]) -> str:
    """The name the run store gives a run nobody named (``core/runs/store.py``)."""
    return f"{params.get('model.name')} · {params.get('optimizer.name')} · {params.get('data.name')}"


def _setting(key: str, value: Any) -> str:
    section, _, name = key.partition(".")
    text = format_value(value).replace(" ", "")
    if section == "train" and name in TRAIN_WORDS:
        return TRAIN_WORDS[name].format(text)
    return f"{name.replace('_', ' ') if section not in REGISTRY_SECTIONS else name}={text}"


def describe(params: dict[str, Any], keys: list[str]) -> str:
    """One run's ``params`` told by ``keys`` (the differing settings, in section order)."""
    groups: dict[str, list[str]] = {}
    for key in keys:
        section, _, name = key.partition(".")
        words = groups.setdefault(section, [])
        if section in REGISTRY_SECTIONS and not words:
            words.append(str(params.get(f"{section}.name", "?")))  # "sgd lr=0.05", not "lr=0.05"
        if name != "name":
            words.append(_setting(key, params.get(key)))
    parts = [" ".join(words) for words in groups.values()]
    if len(parts) > MAX_PARTS:
        parts = parts[:MAX_PARTS] + ["…"]
    return " · ".join(parts)


def _tells_apart(key: str, runs: list[dict[str, Any]]) -> bool:
    """A setting only some runs have (another optimizer's momentum) counts when those runs disagree on it."""
    present = {format_value(p[key]) for p in runs if key in p}
    return len(present) > 1 or all(key in p for p in runs) or key.endswith(".name")


def run_names(params: dict[str, dict[str, Any]], given: dict[str, str] | None = None) -> dict[str, str]:
    """``run_id → name`` for these runs' settings (``RunStore.all_params``); ``given`` holds the stored names in
    ``RunStore.list()``'s order (newest first): one a person chose is kept, an automatic one becomes what differs
    (or stays, when nothing differs). Runs left with one name are numbered, oldest first."""
    given = given or {}
    runs = list(params.values())
    keys = [k for k in differing_keys(runs) if _tells_apart(k, runs)]
    keys.sort(key=lambda k: (_SECTIONS.index(k.split(".")[0]) if k.split(".")[0] in _SECTIONS else 9,
                             not k.endswith(".name"), not k.endswith(".lr"), k))
    out = {}
    for run_id, p in params.items():
        stored = given.get(run_id, "")
        chosen = stored and stored != automatic_name(p)
        out[run_id] = stored if chosen else (describe(p, keys) if keys else stored or automatic_name(p))
    newest_first = [r for r in given if r in out]
    return number_duplicates(out, [*reversed(newest_first), *sorted(set(out) - set(newest_first))])


def number_duplicates(names: dict[str, str], oldest_first: list[str] | None = None) -> dict[str, str]:
    """Tell runs with one name apart: the oldest (``oldest_first``, else by id: ids start with the time they
    were made) keeps it, the others get `` #2``, `` #3`` … (never a name another run already has)."""
    rank = {run_id: i for i, run_id in enumerate(oldest_first or sorted(names))}
    groups: dict[str, list[str]] = {}
    for run_id, name in names.items():
        groups.setdefault(name, []).append(run_id)
    taken = set(names.values())
    out = dict(names)
    for name, ids in groups.items():
        number = 1
        for run_id in sorted(ids, key=lambda r: (rank.get(r, len(rank)), r))[1:]:
            number += 1
            while f"{name} #{number}" in taken:
                number += 1
            out[run_id] = f"{name} #{number}"
            taken.add(out[run_id])
    return out
