"""What every demo shares: progress/frame callbacks, cancellation, the device, optimizer specs (torch-free)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from studio.core.errors import ConfigError
from studio.core.numbers.ints import split_ints

Progress = Callable[[float, str], None]  # (fraction 0..1, text): a core.jobs.Progress; raises core.jobs.Cancelled
Emit = Callable[[dict[str, Any]], None]  # a live snapshot for a viewer


def report(progress: Progress | None, fraction: float, text: str) -> None:
    if progress is not None:
        progress(min(max(fraction, 0.0), 1.0), text)


def send(emit: Emit | None, frame: dict[str, Any]) -> None:
    if emit is not None:
        emit(frame)


def finite_or_none(value: float | None) -> float | None:
    """JSON has no NaN/inf: a number that is not finite becomes None."""
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def parse_ints(text: str | list[int], where: str) -> list[int]:
    """"16, 64,256" → [16, 64, 256] (positive whole numbers)."""
    if isinstance(text, list):
        values = text
    else:
        try:
            values = split_ints(str(text))
        except ValueError:
            raise ConfigError(f"{where} takes whole numbers separated by commas, e.g. 16,64,256; "
                              f"got {text!r}") from None
    if not values or any(v < 1 for v in values):
        raise ConfigError(f"{where} needs at least one positive whole number; got {text!r}")
    if where == "widths":  # an MLP's hidden layers: refused before anything is built when they cannot fit
        from studio.core.estimates.footprint import check_mlp

        check_mlp(1, values, 1, 1, what="an MLP")
    return values


_SPEC = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\((.*)\))?\s*$")


def parse_optimizer_specs(text: str, where: str = "optimizers") -> list[tuple[str, dict[str, str]]]:
    """"gd(lr=1.9); momentum(lr=0.5, momentum=0.9); newton" → [(name, {key: value-as-text}), ...].

    Values are checked later against the optimizer's registry parameters.
    """
    specs: list[tuple[str, dict[str, str]]] = []
    for part in (p for p in text.split(";") if p.strip()):
        match = _SPEC.match(part)
        if not match:
            raise ConfigError(f"{where}: cannot read {part.strip()!r}; write optimizers as name or name(key=value, …) "
                              "separated by ';', e.g. gd(lr=1.9); adam(lr=0.1)")
        name, inside = match.group(1), match.group(2) or ""
        options: dict[str, str] = {}
        for item in (i.strip() for i in inside.split(",") if i.strip()):
            key, sep, value = item.partition("=")
            if not sep or not key.strip():
                raise ConfigError(f"{where}: {name}'s settings are key=value pairs, e.g. {name}(lr=0.1); got {item!r}")
            options[key.strip()] = value.strip()
        specs.append((name, options))
    if not specs:
        raise ConfigError(f"{where}: name at least one optimizer, e.g. gd; adam")
    return specs


def spec_label(name: str, options: dict[str, Any]) -> str:
    """A short legend label: ``gd(lr=1.9)``."""
    if not options:
        return name
    return f"{name}(" + ", ".join(f"{k}={v}" for k, v in options.items()) + ")"


class torch_threads:  # noqa: N801 - used like a function: ``with torch_threads(1):``
    """Run a block with ``n`` intra-op torch threads (tiny models are many times faster on one thread:
    thread hand-offs cost more than their arithmetic, worst on a busy machine); 0 leaves the setting alone."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.old = 0

    def __enter__(self) -> None:
        import torch

        self.old = torch.get_num_threads()
        if self.n > 0:
            torch.set_num_threads(self.n)

    def __exit__(self, *exc: object) -> None:
        import torch

        if self.n > 0:
            torch.set_num_threads(self.old)


def single_threaded(func: Callable[..., Any]) -> Callable[..., Any]:
    """Decorator: run a tiny-model demo on one torch thread (see :class:`torch_threads`)."""
    import functools

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with torch_threads(1):
            return func(*args, **kwargs)

    return wrapper
