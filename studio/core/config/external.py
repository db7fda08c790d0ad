"""The config of a run Studio did not train (a script watched through ``studio.track``, a TensorBoard import, an
attached model): each choice section names ``external``, an entry every registry holds hidden (found by name,
never listed), so such a run's ``config.toml`` is a valid RunConfig and the run list, Compare and the filter
language read it like any run. The script's own settings are the run's params (core/runs/tracked.py)."""

from __future__ import annotations

from typing import Any, Final

from studio.core.contracts.registry import Entry, Registry
from studio.core.datasets import DATASETS
from studio.core.errors import ConfigError
from studio.core.models import MODELS
from studio.core.optim import OPTIMIZERS, SCHEDULES

EXTERNAL: Final = "external"
_WHAT = {"dataset": "data", "model": "model", "optimizer": "optimizer", "schedule": "learning-rate schedule"}


def not_trainable(*_args: Any, **_kwargs: Any) -> Any:
    """The builder of every ``external`` entry: Studio cannot train what it did not build."""
    raise ConfigError("this run was trained outside Studio (its model, data and optimizer are the script's): "
                      "Studio shows and analyses it but cannot train or resume it")


def register(registry: Registry) -> None:
    """Add the hidden ``external`` entry to ``registry`` (once)."""
    if EXTERNAL not in registry:
        registry.add(Entry(EXTERNAL, f"the {_WHAT[registry.kind]} of a script Studio watched",
                           builder="studio.core.config.external:not_trainable", tags=(EXTERNAL,)), hidden=True)


for _registry in (DATASETS, MODELS, OPTIMIZERS, SCHEDULES):
    register(_registry)


def external_sections() -> dict[str, dict[str, str]]:
    """The choice sections of an external run's config (``RunConfig.from_dict`` takes them)."""
    return {section: {"name": EXTERNAL} for section in ("data", "model", "optimizer", "schedule")}


def is_external(config: Any) -> bool:
    """Whether a RunConfig is an external run's (its model is ``external``)."""
    return getattr(getattr(config, "model", None), "name", None) == EXTERNAL


def is_external_toml(text: str) -> bool:
    """Whether a run's config.toml text is an external run's, without parsing it (the run list asks per row):
    ``RunConfig.to_toml`` writes the entry's name first in its section."""
    return f'[model]\nname = "{EXTERNAL}"\n' in text
