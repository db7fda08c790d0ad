"""One filter language for the run list and ``studio runs --filter`` (torch-free, Qt-free).

An expression is words separated by spaces (``"two words"`` quoted); a run matches when every word matches:

- ``adam`` — a plain word: found (case-insensitive) in the run's name, id, status, dataset, model, optimizer,
  tags or notes;
- ``key:value`` — a field (``name id status dataset model optimizer tag notes``; ``data`` and ``optim`` say
  the same) contains the value (``tag:`` is a whole tag, ``status:`` a whole status), or a setting
  (``optimizer.lr:0.1``, ``optim.lr:0.1``, ``train.epochs:5``) or summary value (``device:cpu``) equals it;
- ``key>number`` (``>= < <= = !=``) — a summary number (``test_acc>0.8``, ``epochs>=10``) or a numeric
  setting (``optim.lr<0.01``) compared; a run without that value does not match (``model=mlp`` is
  ``model:mlp``; ``model!=mlp`` its opposite).

A word that cannot mean anything (``test_acc>high``, an unknown setting, an unclosed quote) is a ConfigError
of one sentence. ``sort_key`` orders runs by a column the same way everywhere: numbers as numbers, text
case-insensitively, empty last.
"""

from __future__ import annotations

import functools
import math
import operator
import re
import shlex
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from studio.core.errors import ConfigError

# field name → the RunFacts attribute it reads (aliases included)
FIELDS = {"name": "name", "id": "id", "status": "status", "dataset": "dataset", "data": "dataset",
          "model": "model", "optimizer": "optimizer", "optim": "optimizer", "tag": "tags", "tags": "tags",
          "notes": "notes", "note": "notes"}
SECTION_ALIASES = {"optim": "optimizer", "dataset": "data"}  # optim.lr → optimizer.lr
_COMPARISON = re.compile(r"^([A-Za-z_][\w.]*)\s*(>=|<=|!=|>|<|=)\s*(.*)$")
_OPS: dict[str, Callable[[float, float], bool]] = {">": operator.gt, ">=": operator.ge, "<": operator.lt,
                                                   "<=": operator.le, "=": operator.eq, "!=": operator.ne}


@dataclass
class RunFacts:
    """What a filter and a sort see of one run: its words, its settings (``section.key → value``) and its summary."""

    id: str
    name: str
    status: str
    created: float = 0.0
    tags: tuple[str, ...] = ()
    notes: str = ""
    params: Mapping[str, Any] = field(default_factory=dict)
    summary: Mapping[str, Any] = field(default_factory=dict)
    _text: str = ""

    @property
    def dataset(self) -> str:
        return str(self.params.get("data.name", ""))

    @property
    def model(self) -> str:
        return str(self.params.get("model.name", ""))

    @property
    def optimizer(self) -> str:
        return str(self.params.get("optimizer.name", ""))

    def text(self) -> str:
        """Every word a plain filter word is looked for in, lower-case (computed once)."""
        if not self._text:
            self._text = "\n".join([self.name, self.id, self.status, self.dataset, self.model, self.optimizer,
                                    *self.tags, self.notes]).lower()
        return self._text


def facts_of(run: Any, params: Mapping[str, Any] | None = None, notes: str = "", name: str = "") -> RunFacts:
    """The facts of a ``RunInfo`` (its ``tags`` included) with its settings, notes and shown name."""
    return RunFacts(run.id, name or run.name, run.status, run.created, tuple(getattr(run, "tags", ())), notes,
                    params or {}, dict(run.summary))


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def _setting(key: str) -> str:
    section, _, rest = key.partition(".")
    return f"{SECTION_ALIASES.get(section, section)}.{rest}" if rest else key


def _equal(have: Any, want: str) -> bool:
    a, b = _number(have), _number(want)
    if a is not None and b is not None:
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    if isinstance(have, (list, tuple)):
        return want.lower().replace(" ", "") in (",".join(str(v) for v in have).lower(),
                                                 str(list(have)).lower().replace(" ", ""))
    return str(have).lower() == want.lower()


Test = Callable[[RunFacts], bool]


@dataclass(frozen=True)
class RunFilter:
    """A parsed expression: ``matches(facts)``; the empty expression matches every run."""

    expression: str
    tests: tuple[Test, ...] = ()

    def matches(self, facts: RunFacts) -> bool:
        return all(test(facts) for test in self.tests)

    def select(self, runs: Iterable[RunFacts]) -> list[RunFacts]:
        return [f for f in runs if self.matches(f)]


def _word(word: str) -> Test:
    low = word.lower()
    return lambda f: low in f.text()


def _field(key: str, value: str, known: Collection[str] | None) -> Test:
    """``key:value``: a field, a setting or a summary value."""
    attr = FIELDS.get(key.lower())
    low = value.lower()
    if attr == "tags":
        return lambda f: any(t.lower() == low for t in f.tags)
    if attr == "status":
        return lambda f: f.status.lower() == low
    if attr is not None:
        return lambda f: low in str(getattr(f, attr)).lower()
    setting = _setting(key)
    if known is not None and setting not in known and key not in known:
        raise ConfigError(f"unknown field or setting {key!r} in {key}:{value}: use a field "
                          f"({', '.join(sorted(set(FIELDS)))}), a setting such as optimizer.lr or a summary value "
                          "such as test_acc")
    return lambda f: ((setting in f.params and _equal(f.params[setting], value))
                      or (key in f.summary and _equal(f.summary[key], value)))


def _compare(key: str, op: str, value: str, known: Collection[str] | None) -> Test:
    want = _number(value)
    if value == "":
        raise ConfigError(f"{key}{op} needs a number after {op!r} (for example {key}{op}0.5)")
    if want is None and op in ("=", "!="):  # model=mlp: the same as model:mlp (!=: any other)
        same = _field(key, value, known)
        return same if op == "=" else (lambda f: not same(f))
    if want is None:
        raise ConfigError(f"{key}{op}{value}: {value!r} is not a number; comparisons need one "
                          f"(for example {key}{op}0.5)")
    setting = _setting(key)
    if known is not None and setting not in known and key not in known:
        raise ConfigError(f"unknown number {key!r} in {key}{op}{value}: compare a summary number such as test_acc "
                          "or epochs, or a setting such as optimizer.lr")
    compare = _OPS[op]

    def test(f: RunFacts) -> bool:
        have = f.summary.get(key, f.params.get(setting))
        number = _number(have)
        return number is not None and not math.isnan(number) and compare(number, want)

    return test


def parse(expression: str, known: Collection[str] | None = None) -> RunFilter:
    """Parse a filter expression; ``known`` (the settings and summary keys the store holds) turns an unknown key
    into an error instead of a filter that matches nothing. ConfigError (one sentence) on a bad expression."""
    try:
        words = shlex.split(expression)
    except ValueError as err:
        raise ConfigError(f"the filter {expression!r} cannot be read: {err} (close the quote)") from None
    tests: list[Test] = []
    for word in words:
        match = _COMPARISON.match(word)
        if match:
            key, op, value = match.groups()
            tests.append(_compare(key, op, value, known))
            continue
        key, colon, value = word.partition(":")
        if not colon:
            if word[:1] in "<>=!":
                raise ConfigError(f"{word!r} compares nothing: write the value first, for example test_acc{word}")
            tests.append(_word(word))
        elif not key or not value:
            raise ConfigError(f"{word!r} needs a key and a value, for example status:finished or tag:baseline")
        else:
            tests.append(_field(key, value, known))
    return RunFilter(expression, tuple(tests))


@functools.cache
def _always_known() -> frozenset[str]:
    """Every summary number a run can report and every setting of the default config."""
    from studio.core.config import RunConfig
    from studio.core.contracts.runs import RunSummary
    from studio.core.runs.store import flatten

    return frozenset(RunSummary.__annotations__) | frozenset(flatten(RunConfig().to_dict()))


def known_keys(facts: Iterable[RunFacts]) -> set[str]:
    """What ``parse(..., known=)`` accepts: every setting and summary key the runs have, every summary number a run
    can report and every setting of the default config (so an empty store takes ``test_acc>0.8`` too)."""
    keys: set[str] = set(_always_known())
    for f in facts:
        keys.update(f.params)
        keys.update(f.summary)
    return keys


# --- sorting -----------------------------------------------------------------------------------------------
SORT_COLUMNS = {"run": "name", "name": "name", "id": "id", "status": "status", "started": "created",
                "created": "created", "test acc": "test_acc", "val acc": "val_acc", "notes": "notes",
                "tags": "tags"}


def check_sort_column(column: str, known: Collection[str]) -> str:
    """``column`` when runs can be sorted by it (a column, a summary number, a setting); ConfigError otherwise."""
    low = column.lower()
    if low in SORT_COLUMNS or low in known or _setting(low) in known:
        return column
    raise ConfigError(f"cannot sort by {column!r}: sort by a column (name, id, status, created, test_acc, val_acc, "
                      "steps, tags, notes), a summary number or a setting such as optimizer.lr")


def sort_value(facts: RunFacts, column: str) -> float | str | None:
    """The value a column sorts by: a number, lower-case text, or None (empty: sorts last)."""
    key = SORT_COLUMNS.get(column.lower(), column.lower())
    if key == "created":
        return facts.created
    if key in ("name", "id", "status", "notes"):
        return str(getattr(facts, key)).lower() or None
    if key == "tags":
        return ", ".join(sorted(t.lower() for t in facts.tags)) or None
    have = facts.summary.get(key, facts.params.get(_setting(key)))
    number = _number(have)
    if number is not None:
        return None if math.isnan(number) else number
    return str(have).lower() if have not in (None, "") else None


def sort_runs(runs: Iterable[RunFacts], column: str, descending: bool = False) -> list[RunFacts]:
    """Runs ordered by ``column`` (numbers before text; empty last in either direction)."""
    keyed = [(sort_value(f, column), f) for f in runs]
    numbers = [(v, f) for v, f in keyed if isinstance(v, float)]
    texts = [(v, f) for v, f in keyed if isinstance(v, str)]
    numbers.sort(key=lambda p: p[0], reverse=descending)
    texts.sort(key=lambda p: p[0], reverse=descending)
    return [f for _, f in numbers] + [f for _, f in texts] + [f for v, f in keyed if v is None]
