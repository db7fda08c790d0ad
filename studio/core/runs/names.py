"""One name per run, the same in every view, picker, the curves' key and the CLI; given once, when the run is
made (``RunStore.create_run``), and kept in the run store, so it never changes when other runs come or go.

The rule: the model and the data, then each setting that differs from its default (the registry entry's defaults
for the model, data, optimizer and schedule; ``RunConfig``'s for [train] and [hardware]), every part after a
" · ": ``mlp · fashion_mnist_small · sgd lr=0.05 · batch 256 · 3 epochs``. An entry that only says where the
person's choice is (``python``, ``timm``, ``hf``, ``hf_disk``) is named by that choice: the class (else the file),
its arguments as settings (``TinyNet width=8``), ``timm:ARCH``, ``hf:FOLDER`` and the dataset folder's name.
Settings that only say what the run records or keeps (``histogram_every``, ``checkpoint_every`` …) are left out.
The same settings again are numbered in the order the runs were made: ``… #2``, ``… #3``. A name a person gives
(Rename, ``launch(name=…)``, a sweep's name) is kept as it is. Runs made before this rule carry the old automatic
name (``model · optimizer · data``): they are shown by the rule, numbered with the others in the order the runs
were made.

Short of room (:func:`fit`), a name loses its data part first, then its last settings one by one, then the model's
own settings (an "…" says where); the model and the number always stay (the whole name goes in a tooltip).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import asdict
from functools import lru_cache
from pathlib import PurePath
from typing import Any

from studio.core.runs.settings_diff import format_value

SEP = " · "
MORE = "…"
SECTIONS = ("model", "data", "optimizer", "schedule")  # registry sections, in the order a name tells them
# [train] settings that read better as words
TRAIN_WORDS = {"batch_size": "batch {}", "seed": "seed {}"}
# [train] settings that say what a run records or keeps, not what it learns: never part of a name
RECORDING = frozenset({"metric_interval", "checkpoint_every", "checkpoint_minutes", "landscape_every",
                       "sharpness_every", "histogram_every", "trajectory_snapshots", "attention_every",
                       "keep_checkpoints", "stall_timeout"})
_NUMBER = re.compile(r"^(.*) #(\d+)$")


def legacy_name(params: dict[str, Any]) -> str:
    """The automatic name of runs made before the naming rule (``model · optimizer · data``)."""
    return f"{params.get('model.name')} · {params.get('optimizer.name')} · {params.get('data.name')}"


@lru_cache(maxsize=256)
def _entry_defaults(section: str, name: str) -> tuple[tuple[str, Any], ...]:
    from studio.core.config.run_config import REGISTRIES

    try:
        return tuple(REGISTRIES[section].get(name).defaults().items())
    except Exception:  # noqa: BLE001 - an entry no longer registered (an imported dataset removed): no defaults
        return ()


@lru_cache(maxsize=1)
def _config_defaults() -> tuple[dict[str, str], dict[str, Any]]:
    """The default entry of each registry section, and the default [train] and [hardware] settings."""
    from studio.core.config.run_config import RunConfig

    config = RunConfig()
    plain = {**{f"train.{k}": v for k, v in asdict(config.train).items()},
             **{f"hardware.{k}": v for k, v in asdict(config.hardware).items()}}
    return {s: getattr(config, s).name for s in SECTIONS}, plain


def _same(a: Any, b: Any) -> bool:
    return format_value(a) == format_value(b)


def _value(value: Any) -> str:
    return format_value(value).replace(" ", "")


def _changed(params: dict[str, Any], section: str, said: frozenset[str] = frozenset()) -> list[str]:
    """``key=value`` for each of the section's settings that differs from its entry's default (but those in
    ``said``), then a person's class arguments (``section.args.KEY``)."""
    defaults = dict(_entry_defaults(section, str(params.get(f"{section}.name"))))
    out = [f"{key}={_value(params[f'{section}.{key}'])}" for key, default in defaults.items()
           if key not in said and f"{section}.{key}" in params and not _same(params[f"{section}.{key}"], default)]
    prefix = f"{section}.args."
    return out + [f"{key[len(prefix):]}={_value(value)}" for key, value in params.items() if key.startswith(prefix)]


def _leaf(path: Any) -> str:
    """The last part of a file path, folder or hub id ("" for none)."""
    return PurePath(str(path or "").rstrip("/\\")).name


def _head(section: str, name: str, params: dict[str, Any]) -> tuple[str, frozenset[str]]:
    """A part's first word and the settings it already says: the entry's name, or the person's choice where the
    entry only says where that is (their class or file, a timm architecture, a Hugging Face folder or id)."""
    def get(key: str) -> Any:
        return params.get(f"{section}.{key}")

    if name == "python":
        return str(get("class") or PurePath(_leaf(get("path"))).stem or name), frozenset({"path", "class", "args"})
    if name == "timm" and get("arch"):
        return f"timm:{get('arch')}", frozenset({"arch"})
    if name in ("hf", "hf_disk") and _leaf(get("path")):
        return (f"hf:{_leaf(get('path'))}" if name == "hf" else _leaf(get("path"))), frozenset({"path"})
    return name, frozenset()


def _train_part(key: str, value: Any) -> str:
    if key == "epochs":
        return f"{_value(value)} epoch{'' if value == 1 else 's'}"
    if key in TRAIN_WORDS:
        return TRAIN_WORDS[key].format(_value(value))
    return f"{key.replace('_', ' ')}={_value(value)}"


def base_name(params: dict[str, Any]) -> str:
    """The rule's name of a run with these settings (``RunStore.all_params``' flat ``section.key``), unnumbered."""
    default_entries, plain = _config_defaults()
    parts = []
    for section in SECTIONS:
        name = params.get(f"{section}.name")
        head, said = _head(section, str(name), params) if name is not None else ("?", frozenset())
        changed = _changed(params, section, said) if name is not None else []
        if section in ("model", "data"):
            parts.append(" ".join([head, *changed]))
        elif name is not None and (changed or name != default_entries[section]):
            parts.append(" ".join([str(name), *changed]))
    for key, default_value in plain.items():
        section, _, setting = key.partition(".")
        if key not in params or _same(params[key], default_value) or setting in RECORDING:
            continue
        if section == "train":
            parts.append(_train_part(setting, params[key]))
        elif setting == "device":
            parts.append(str(params[key]))
        elif setting == "processes":
            parts.append(f"{_value(params[key])} processes")
    return SEP.join(parts)


def numbered(base: str, taken: Iterable[str]) -> str:
    """``base``, or ``base #k`` past the highest number a taken name of that base has (the same settings again)."""
    highest = 0
    for name in taken:
        if name == base:
            highest = max(highest, 1)
        else:
            m = _NUMBER.match(name)
            if m and m.group(1) == base:
                highest = max(highest, int(m.group(2)))
    return base if highest == 0 else f"{base} #{highest + 1}"


def fresh_name(params: dict[str, Any], taken: Iterable[str]) -> str:
    """The name a new run with these settings gets, beside runs named ``taken`` (``RunStore.create_run``)."""
    return numbered(base_name(params), taken)


def run_names(params: dict[str, dict[str, Any]], given: dict[str, str] | None = None) -> dict[str, str]:
    """``run_id → name`` as every view shows it: the stored name (``given``, in ``RunStore.list()``'s order, newest
    first), or the rule's for a run with the old automatic name (or none); names two runs would share (old runs,
    two processes naming at once) numbered oldest first."""
    given = given or {}
    out = {}
    for run_id, p in params.items():
        stored = given.get(run_id, "")
        out[run_id] = stored if stored and stored != legacy_name(p) else base_name(p)
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


_shown: dict[str, tuple[Any, dict[str, str]]] = {}  # store database → (what it was read at, the names)


def shown_names(store: Any, runs: list[Any] | None = None) -> dict[str, str]:
    """Every run's name in a ``RunStore`` (``run_names`` over all its runs; ``runs``: its ``list()`` when the
    caller has it). Read again only when a run, a stored name or a setting changed."""
    runs = store.list() if runs is None else runs
    seen = (store.params_version(), tuple((r.id, r.name) for r in runs))
    key = str(store.db_path)
    cached = _shown.get(key)
    if cached is None or cached[0] != seen:
        params = store.all_params()
        cached = _shown[key] = (seen, run_names({r.id: params.get(r.id, {}) for r in runs},
                                                {r.id: r.name for r in runs}))
    return dict(cached[1])


def fit(name: str, room: float, measure: Callable[[str], float] = len) -> str:
    """``name`` in ``room`` (``measure``: its width, characters by default): whole if it fits; else without its
    data part, then without its last settings one by one, then without the model's own settings, "…" where
    something was left out; the model's name and the number (`` #2``) stay. Still too wide: cut in the middle of
    the characters, the number kept."""
    if measure(name) <= room:
        return name
    m = _NUMBER.match(name)
    body, number = (m.group(1), f" #{m.group(2)}") if m else (name, "")
    parts = body.split(SEP)
    order = ([1] if len(parts) > 1 else []) + list(range(len(parts) - 1, 1, -1))
    dropped: set[int] = set()
    text = body + number
    for index in order:
        dropped.add(index)
        text = _join(parts, dropped) + number
        if measure(text) <= room:
            return text
    words = parts[0].split(" ")  # the model's own settings, last first; its name stays
    rest = text[len(parts[0]):]
    if rest == f"{SEP}{MORE}{number}":  # one "…" says it: "gpt_lm layers=1 …", not "gpt_lm layers=1 … · …"
        rest = number
    for keep in range(len(words) - 1, 0, -1):
        text = " ".join([*words[:keep], MORE]) + rest
        if measure(text) <= room:
            return text
    return _cut_middle(text, room, measure, len(number))


def _join(parts: list[str], dropped: set[int]) -> str:
    out: list[str] = []
    for i, part in enumerate(parts):
        if i not in dropped:
            out.append(part)
        elif not out or out[-1] != MORE:
            out.append(MORE)
    return SEP.join(out)


def _cut_middle(text: str, room: float, measure: Callable[[str], float], keep_end: int) -> str:
    """The most of ``text``'s start and end (at least its last ``keep_end`` characters) around an "…"."""
    best = MORE + text[len(text) - keep_end:] if keep_end else MORE
    for shown in range(len(text) - 1, 0, -1):
        tail = max(keep_end, shown // 3)
        head = shown - tail
        if head < 1:
            continue
        candidate = text[:head] + MORE + text[len(text) - tail:]
        if measure(candidate) <= room:
            return candidate
    return best
