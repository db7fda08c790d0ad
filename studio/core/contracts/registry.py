"""Registries: named entries with typed parameters and a lazily imported builder.

An entry never imports torch itself: its ``builder`` is a ``"module:function"`` path that is
imported only when something is built (in a worker process). So the GUI can read every registry,
build its forms from the parameters and validate a config without importing torch.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from studio.core.errors import ConfigError
from studio.core.numbers.ints import split_ints
from studio.core.targets import resolve_target

KINDS = ("int", "float", "bool", "choice", "ints", "str", "args")  # args: a table of a user's own arguments


@dataclass
class Choice:
    """A registry entry by name, with its parameter values."""

    name: str
    params: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, **self.params}


@dataclass(frozen=True)
class Param:
    """One typed parameter: the GUI builds a widget from it, the config validates against it."""

    name: str
    kind: str
    default: Any
    help: str = ""
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    log: bool = False  # a log-scale quantity (learning rates): the GUI uses a wide spin box

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown parameter kind {self.kind!r}")

    def coerce(self, value: Any, where: str) -> Any:
        """Return ``value`` converted to this parameter's type, or raise ConfigError naming ``where``."""
        if self.kind == "args":  # checked against the user's signature by core/usercode (arguments.py)
            if not isinstance(value, dict):
                raise ConfigError(f"{where} must be a table of argument = value, e.g. [{where}] width = 64")
            return dict(value)
        try:
            if self.kind == "bool":
                if isinstance(value, str):
                    if value.lower() not in ("true", "false", "1", "0", "yes", "no"):
                        raise ValueError(value)
                    value = value.lower() in ("true", "1", "yes")
                return bool(value)
            if self.kind == "int":
                if isinstance(value, float) and not value.is_integer():
                    raise ValueError(value)
                value = int(value)
            elif self.kind == "float":
                value = float(value)
                if value != value or value in (float("inf"), float("-inf")):
                    raise ConfigError(f"{where} must be a finite number, not {value}")
            elif self.kind == "ints":
                value = split_ints(value)
            elif self.kind in ("choice", "str"):
                value = str(value)
        except (TypeError, ValueError, OverflowError):
            raise ConfigError(f"{where} must be {self._describe()}, not {value!r}") from None
        if self.kind == "choice" and value not in self.choices:
            raise ConfigError(f"{where} must be one of {', '.join(self.choices)}; got {value!r}")
        items = value if self.kind == "ints" else [value] if self.kind in ("int", "float") else []
        for item in items:
            if (self.low is not None and item < self.low) or (self.high is not None and item > self.high):
                raise ConfigError(f"{where} must be between {self.low} and {self.high}; got {value!r}")
        return value

    def _describe(self) -> str:
        return {
            "int": "a whole number",
            "float": "a number",
            "bool": "true or false",
            "ints": "a list of whole numbers (e.g. 512,512)",
        }.get(self.kind, "text")


@dataclass(frozen=True)
class Suggested:
    """Settings an entry suggests for a run of it where the shared defaults give an untrained result or take far
    longer than a few minutes (``section.key → value``, as ``--set`` names them), and why, in a clause. The window applies them when the
    entry is picked; ``studio train --preset suggested`` on request (core/config/suggested.py)."""

    settings: dict[str, Any] = field(default_factory=dict, hash=False)
    why: str = ""


@dataclass(frozen=True)
class Entry:
    """A registry entry: a name, a one-line description, its parameters and where its builder is."""

    name: str
    description: str
    params: tuple[Param, ...] = ()
    builder: str = ""
    info: str = ""  # the formula or paper, shown as a tooltip / info panel
    tags: tuple[str, ...] = field(default=())
    suggested: Suggested | None = field(default=None, compare=False, hash=False)  # settings that show its point

    def defaults(self) -> dict[str, Any]:
        return {p.name: p.default for p in self.params}

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    def load_builder(self) -> Callable[..., Any]:
        return resolve_target(self.builder)


class Registry:
    """A named collection of entries (datasets, models, optimizers, schedules, demos)."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._entries: dict[str, Entry] = {}
        self._hidden: dict[str, Entry] = {}  # found by name, never listed (core/config/external.py)

    def add(self, entry: Entry, hidden: bool = False) -> Entry:
        """Register ``entry``; a ``hidden`` one is found by name (a config that names it is valid) but is left out
        of every listing (pickers, ``studio list``, the tests' sets): a run Studio did not train."""
        if entry.name in self._entries or entry.name in self._hidden:
            raise ValueError(f"{self.kind} {entry.name!r} registered twice")
        (self._hidden if hidden else self._entries)[entry.name] = entry
        return entry

    def remove(self, name: str) -> None:
        self._entries.pop(name, None)
        self._hidden.pop(name, None)

    def __contains__(self, name: object) -> bool:
        return name in self._entries or name in self._hidden

    def __iter__(self):
        return iter(self._entries.values())

    def names(self) -> list[str]:
        return list(self._entries)

    def get(self, name: str) -> Entry:
        try:
            return self._entries[name] if name in self._entries else self._hidden[name]
        except KeyError:
            raise ConfigError(
                f"unknown {self.kind} {name!r}; choose one of: {', '.join(self._entries)}"
            ) from None

    def resolve(self, name: str, values: dict[str, Any], section: str) -> dict[str, Any]:
        """Validate ``values`` for entry ``name``: fill defaults, coerce types, refuse unknown keys."""
        entry = self.get(name)
        known = {p.name for p in entry.params}
        unknown = sorted(set(values) - known)
        if unknown:
            allowed = ", ".join(sorted(known)) or "none"
            raise ConfigError(
                f"{section}.{unknown[0]} is not a parameter of {self.kind} {name!r} (allowed: {allowed})"
            )
        out = entry.defaults()
        for key, value in values.items():
            out[key] = entry.param(key).coerce(value, f"{section}.{key}")
        return out

    def build(self, entry_name: str, /, **kwargs: Any) -> Any:
        """Import the entry's builder and call it with ``kwargs``."""
        return self.get(entry_name).load_builder()(**kwargs)

    def describe(self) -> list[dict[str, Any]]:
        """A JSON-able listing (for ``studio list``)."""
        return [
            {
                "name": e.name,
                "description": e.description,
                "info": e.info,
                "params": [
                    {"name": p.name, "kind": p.kind, "default": p.default, "help": p.help,
                     "low": p.low, "high": p.high, "choices": list(p.choices)}
                    for p in e.params
                ],
                **({"suggested": dict(e.suggested.settings)} if e.suggested else {}),
            }
            for e in self
        ]
