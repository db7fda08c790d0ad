"""A search space as people write it, typed by the registries: ``optimizer.lr=1e-4..1e-1:log`` (a range of a number;
log-uniform where the parameter is log-scaled, ``Param.log``, unless ``:linear`` says otherwise), ``train.batch_size
=32,64,128`` (a list of values: a choice), ``model.widths=[64],[128,128]`` (lists in brackets). Every dimension is
checked against the base config before anything is searched, each mistake in one sentence: a setting that does not
exist (the nearest names suggested), an empty or inverted range, a range outside what the setting takes, a range of
a setting that is not a number.

Torch-free and Optuna-free at import: ``Dimension.distribution`` imports Optuna when a study needs it.
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass
from typing import Any

from studio.core.config import RunConfig
from studio.core.config.run_config import CHOICE_SECTIONS, REGISTRIES, train_params
from studio.core.config.sweep import _split_top_level, _toml_value
from studio.core.contracts.registry import Param
from studio.core.errors import ConfigError

SECTIONS = (*CHOICE_SECTIONS, "train")  # what a search may vary (the hardware is not a hyperparameter)
EXAMPLE = "optimizer.lr=1e-4..1e-1:log or train.batch_size=32,64,128"
GRID_MOST = 10_000  # points a grid may have


@dataclass(frozen=True)
class Dimension:
    """One searched setting: a float or int range (``low``…``high``, log-uniform or not) or a list of values."""

    key: str
    kind: str  # "float", "int" or "choice"
    low: float = 0.0
    high: float = 0.0
    log: bool = False
    choices: tuple[Any, ...] = ()

    def distribution(self) -> Any:
        """The Optuna distribution of this dimension (a list's values as Optuna can store them: lists as text)."""
        from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution

        if self.kind == "float":
            return FloatDistribution(self.low, self.high, log=self.log)
        if self.kind == "int":
            return IntDistribution(int(self.low), int(self.high), log=self.log)
        return CategoricalDistribution([stored(c) for c in self.choices])

    def grid(self) -> list[Any] | None:
        """Every value of a grid over this dimension (a list's values, an int range's integers); None for a
        continuous range."""
        if self.kind == "choice":
            return [stored(c) for c in self.choices]
        if self.kind == "int" and not self.log and self.high - self.low < GRID_MOST:
            return list(range(int(self.low), int(self.high) + 1))
        return None

    def text(self) -> str:
        """The dimension as it is written: ``optimizer.lr=0.0001..0.1:log``."""
        if self.kind == "choice":
            return f"{self.key}={','.join(_written(c) for c in self.choices)}"
        ends = f"{_number(self.low)}..{_number(self.high)}"
        return f"{self.key}={ends}{':log' if self.log else ''}"

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "kind": self.kind, "low": self.low, "high": self.high, "log": self.log,
                "choices": [stored(c) for c in self.choices]}


def stored(value: Any) -> Any:
    """A value as Optuna keeps it: numbers, text and booleans as they are, a list as its TOML text."""
    return _toml_value(value) if isinstance(value, list) else value


def _written(value: Any) -> str:
    return _toml_value(value) if isinstance(value, (list, bool)) else str(value)


def _number(value: float) -> str:
    return f"{value:g}"


@dataclass(frozen=True)
class SearchSpace:
    dims: tuple[Dimension, ...]

    @property
    def keys(self) -> list[str]:
        return [d.key for d in self.dims]

    def distributions(self) -> dict[str, Any]:
        return {d.key: d.distribution() for d in self.dims}

    def grid(self) -> dict[str, list[Any]] | None:
        """The grid sampler's values per setting; None when a dimension is a continuous range."""
        values = {d.key: d.grid() for d in self.dims}
        return None if any(v is None for v in values.values()) else values  # type: ignore[return-value]

    def size(self) -> int | None:
        """How many distinct settings the space holds (None: infinitely many, a float range)."""
        if any(d.kind == "float" for d in self.dims):
            return None
        total = 1
        for d in self.dims:
            total *= len(d.choices) if d.kind == "choice" else int(d.high - d.low + 1)
        return total

    def apply(self, base: RunConfig, values: dict[str, Any]) -> RunConfig:
        """The base config with a trial's values (as Optuna gave them) set."""
        assignments = []
        for key, value in values.items():
            if key.endswith(".name") or isinstance(value, str) and value.startswith("["):
                assignments.append(f"{key}={value}")  # an entry's name, a list kept as its TOML text
            else:
                assignments.append(f"{key}={_toml_value(value)}")
        return base.with_overrides(assignments)

    def texts(self) -> list[str]:
        return [d.text() for d in self.dims]

    def to_json(self) -> list[dict[str, Any]]:
        return [d.to_dict() for d in self.dims]


# --- parsing -------------------------------------------------------------------------------------
def parse_space(specs: list[str], base: RunConfig) -> SearchSpace:
    """The space of ``--space`` specs over ``base``; ConfigError (one sentence) for the first mistake."""
    if not specs:
        raise ConfigError(f"give the search at least one setting to vary, e.g. {EXAMPLE}")
    dims: list[Dimension] = []
    for spec in specs:
        dim = parse_dimension(spec, base, dims)
        if dim.key in [d.key for d in dims]:
            raise ConfigError(f"{dim.key} is in the search space twice; give it once")
        dims.append(dim)
    return SearchSpace(tuple(dims))


def parse_dimension(spec: str, base: RunConfig, before: list[Dimension] | None = None) -> Dimension:
    """One ``section.key=VALUES`` spec (``before``: the dimensions already read: an entry's name searched there
    decides which entries a parameter must belong to)."""
    key, sep, values = spec.partition("=")
    key, values = key.strip(), values.strip()
    if not sep or "." not in key:
        raise ConfigError(f"a search setting is section.key=VALUES, e.g. {EXAMPLE}; got {spec!r}")
    if not values:
        raise ConfigError(f"{key} has no values to search: give a range like 1e-4..1e-1 or a list like 32,64,128")
    param = find_param(key, base, before or [])
    if ".." in values:
        return _range(key, values, param)
    return _choices(key, values, param)


def _range(key: str, text: str, param: Param | None) -> Dimension:
    body, _, option = text.partition(":")
    lo_text, _, hi_text = body.partition("..")
    option = option.strip().lower()
    if param is None or param.kind not in ("int", "float"):
        what = "an entry's name" if param is None else f"{param.kind} setting"
        raise ConfigError(f"{key} is {'an' if what[0] in 'aeiou' else 'a'} {what}, not a number: list its values "
                          f"instead (e.g. {key}={_example_choices(param)})")
    try:
        low, high = float(lo_text), float(hi_text)
    except ValueError:
        raise ConfigError(f"cannot read the range {key}={text}: write two numbers around '..', e.g. "
                          f"{key}=1e-4..1e-1") from None
    if not (math.isfinite(low) and math.isfinite(high)):
        raise ConfigError(f"the range {key}={text} needs finite ends")
    if low == high:
        raise ConfigError(f"the range {key}={text} is empty: give two different ends, e.g. {key}="
                          f"{_number(low / 10 if low else 0)}..{_number(high or 1)}, or one value with --set")
    if low > high:
        raise ConfigError(f"the range {key}={text} is inverted: write the lower end first ({key}="
                          f"{_number(high)}..{_number(low)})")
    if option not in ("", "log", "linear", "lin"):
        raise ConfigError(f"after the range of {key} write :log or :linear, not :{option}")
    log = param.log if option == "" else option == "log"
    if log and low <= 0:
        raise ConfigError(f"a log range needs ends above 0; {key}={text} starts at {_number(low)} (use :linear, or "
                          f"a lower end like {_number(high / 1000)})")
    if param.low is not None and low < param.low or param.high is not None and high > param.high:
        raise ConfigError(f"{key} takes values from {_number(param.low or -math.inf)} to "
                          f"{_number(param.high or math.inf)}; the range {key}={text} goes beyond them")
    if param.kind == "int":
        if not (low.is_integer() and high.is_integer()):
            raise ConfigError(f"{key} is a whole number: give whole ends, e.g. {key}={math.ceil(low)}..{int(high)}")
        return Dimension(key, "int", low, high, log)
    return Dimension(key, "float", low, high, log)


def _choices(key: str, text: str, param: Param | None) -> Dimension:
    from studio.core.config.run_config import _parse_scalar

    raw = [v.strip() for v in _split_top_level(text) if v.strip()]
    if not raw:
        raise ConfigError(f"{key} has no values to search: give a list like 32,64,128")
    if key.endswith(".name"):
        section = key.split(".")[0]
        for name in raw:
            REGISTRIES[section].get(name)  # "unknown optimizer 'adamx'; choose one of: …"
        values: list[Any] = raw
    else:
        assert param is not None
        values = [param.coerce(_parse_scalar(v), key) for v in raw]
    unique: list[Any] = []
    for v in values:
        if v not in unique:
            unique.append(v)
    return Dimension(key, "choice", choices=tuple(unique))


def _example_choices(param: Param | None) -> str:
    if param is not None and param.choices:
        return ",".join(param.choices[:3])
    if param is not None and param.kind == "bool":
        return "true,false"
    if param is not None and param.kind == "ints":
        return "[64],[128,128]"
    return "sgd,adam"


# --- which settings exist ------------------------------------------------------------------------
def settings_of(base: RunConfig, entries: dict[str, list[str]] | None = None) -> dict[str, Param | None]:
    """Every setting a search may vary over ``base`` (``section.key`` → its Param; an entry's ``name`` → None);
    ``entries``: a section's entries searched (their parameters, those all of them have)."""
    out: dict[str, Param | None] = {}
    for section in CHOICE_SECTIONS:
        out[f"{section}.name"] = None
        names = (entries or {}).get(section) or [getattr(base, section).name]
        params = [{p.name: p for p in REGISTRIES[section].get(n).params} for n in names]
        for name, p in params[0].items():
            if all(name in other for other in params[1:]):
                out[f"{section}.{name}"] = p
    for p in train_params():
        out[f"train.{p.name}"] = p
    return out


def find_param(key: str, base: RunConfig, before: list[Dimension]) -> Param | None:
    """The Param of ``key`` (None for an entry's name); ConfigError naming the nearest settings otherwise."""
    section = key.split(".", 1)[0]
    if section not in SECTIONS:
        if section == "hardware":
            raise ConfigError(f"{key} is where a run trains, not a hyperparameter: set it with --set, not --space")
        nearest = difflib.get_close_matches(section, SECTIONS, n=1)
        hint = f"; did you mean {nearest[0]}?" if nearest else ""
        raise ConfigError(f"{section!r} is not a section a search can vary (they are {', '.join(SECTIONS)}){hint}")
    entries = {d.key.split(".")[0]: [str(c) for c in d.choices] for d in before if d.key.endswith(".name")}
    known = settings_of(base, entries)
    if key in known:
        return known[key]
    nearest = difflib.get_close_matches(key, list(known), n=3, cutoff=0.6)
    owner = (f"{section} {', '.join(entries[section])}" if section in entries
             else f"{section} {getattr(base, section).name}" if section in CHOICE_SECTIONS else section)
    mine = [k.split(".", 1)[1] for k in known if k.startswith(section + ".") and not k.endswith(".name")]
    hint = (f"; did you mean {nearest[0]}{' (or ' + ', '.join(nearest[1:]) + ')' if nearest[1:] else ''}?" if nearest
            else f"; it has {', '.join(mine[:8])}{' …' if len(mine) > 8 else ''}" if mine else "")
    raise ConfigError(f"{key} is not a setting of {owner}{hint}")
