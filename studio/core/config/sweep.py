"""Sweeps: the values of a swept setting (a list, a range, a log range) and one config per point of the grid
of one or two swept settings, each validated before anything is queued (``studio queue sweep``, the Queue tab).
"""

from __future__ import annotations

import itertools
import json
import math
from typing import Any

from studio.core.config import RunConfig
from studio.core.errors import ConfigError


# --- sweeps ----------------------------------------------------------------------------------
def sweep_values(spec: str) -> list[Any]:
    """Values of one swept setting: ``0.01,0.1,1`` (a list), ``16:64:16`` (start:stop:step, stop included)
    or ``1e-4:1e-1:log4`` (4 log-spaced values from start to stop)."""
    from studio.core.config.run_config import _parse_scalar

    text = spec.strip()
    if ":" not in text:
        values: list[Any] = [_parse_scalar(v.strip()) for v in _split_top_level(text) if v.strip()]
        if not values:
            raise ConfigError(f"a sweep needs at least one value; got {spec!r}")
        return values
    parts = [p.strip() for p in text.split(":")]
    if len(parts) != 3:
        raise ConfigError(f"a sweep range is start:stop:step or start:stop:logN; got {spec!r}")
    try:
        start, stop = float(parts[0]), float(parts[1])
        if parts[2].lower().startswith("log"):
            n = int(parts[2][3:])
            if n < 2 or start <= 0 or stop <= 0:
                raise ValueError
            ratio = (stop / start) ** (1 / (n - 1))
            values = [float(f"{start * ratio**i:.6g}") for i in range(n)]
        else:
            step = float(parts[2])
            if step <= 0 or stop < start:
                raise ValueError
            n = int(math.floor((stop - start) / step + 1e-9)) + 1
            values = [start + i * step for i in range(n)]
            if all(float(p).is_integer() for p in parts):
                values = [int(v) for v in values]
            else:
                values = [float(f"{v:.10g}") for v in values]
    except ValueError:
        raise ConfigError(f"cannot read the sweep range {spec!r}: use e.g. 16:64:16 or 1e-4:1e-1:log4") from None
    if len(values) > 1000:
        raise ConfigError(f"the sweep {spec!r} has {len(values)} values; 1000 at most")
    return values


def _split_top_level(text: str) -> list[str]:
    """Split on the commas outside brackets: ``[16],[64, 64]`` → ``["[16]", "[64, 64]"]``."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += ch == "["
        depth -= ch == "]"
        if ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    return parts + [text[start:]]


def sweep_grid(axes: dict[str, list[Any]]) -> list[dict[str, Any]]:
    """Every combination of the swept settings' values (the first setting varies slowest)."""
    keys = list(axes)
    return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*(axes[k] for k in keys))]


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return repr(value)


def sweep_configs(base: RunConfig, axes: dict[str, list[Any]]) -> list[tuple[RunConfig, str]]:
    """A validated config and a name for every point of the sweep (a bad value fails before anything is queued:
    the config's own rules and whether its model can train on its data, ``core/config/data_fit.py``)."""
    from studio.core.config.data_fit import check_model_data

    out = []
    for point in sweep_grid(axes):
        # a registry entry's name is taken as written (with_overrides does not parse it)
        config = base.with_overrides([f"{k}={v if k.endswith('.name') else _toml_value(v)}" for k, v in point.items()])
        name = " · ".join(f"{_label(k)}={_format(v)}" for k, v in point.items())
        check_model_data(config)
        out.append((config, name))
    return out


def _label(key: str) -> str:
    """``optimizer.lr`` → ``lr``; ``optimizer.name`` → ``optimizer``."""
    section, _, name = key.partition(".")
    return section if name == "name" else name


def _format(value: Any) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)
