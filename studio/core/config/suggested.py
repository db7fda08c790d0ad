"""The settings a model suggests for its runs (its registry entry's ``suggested``, core/contracts/registry.py):
where the shared defaults give an untrained result, as 5 epochs at batch 128 do for a next-word model on a small
corpus. The window applies them when the model is picked, with a note saying what was set and why; the CLI keeps
its documented defaults unless asked (``studio train --preset suggested``), and ``--explain`` shows them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from studio.core.config.run_config import CHOICE_SECTIONS, RunConfig
from studio.core.contracts.registry import Suggested
from studio.core.models import MODELS

PRESETS = ("suggested", "lamb_large_batch")  # what ``--preset`` takes (the others: core/config/paper_presets.py)


def suggestion(model: str) -> Suggested | None:
    """What model ``model`` suggests (None: the shared defaults suit it; an unknown name suggests nothing)."""
    return MODELS.get(model).suggested if model in MODELS else None


def with_suggested(config: RunConfig, keep: Iterable[str] = ()) -> RunConfig:
    """``config`` with its model's suggested settings, except the ``section.key`` names in ``keep`` (the ones a
    person set; a section whose entry a person named keeps all its values: no suggested rate for another
    optimizer); a config whose model suggests nothing comes back as a copy. Names first: a suggested optimizer
    starts at its defaults, then takes the suggested values."""
    found = suggestion(config.model.name)
    if found is None:
        return config.copy()
    kept = set(keep)
    named = {key.partition(".")[0] for key in kept if key.endswith(".name")}
    return with_values(config, {key: value for key, value in found.settings.items()
                                if key not in kept and key.partition(".")[0] not in named})


def with_values(config: RunConfig, values: dict[str, Any]) -> RunConfig:
    """``config`` with each ``section.key`` of ``values`` set (typed values, not ``--set`` text), entry names
    first (a new entry's parameters start at their defaults), validated."""
    data = config.to_dict()
    for key, value in sorted(values.items(), key=lambda kv: not kv[0].endswith(".name")):
        section, _, name = key.partition(".")
        if section in CHOICE_SECTIONS and name == "name":
            if value != data[section]["name"]:
                data[section] = {"name": value}
        else:
            data[section][name] = value
    return RunConfig.from_dict(data)


def pick_model(config: RunConfig, name: str) -> tuple[RunConfig, str]:
    """``config`` once model ``name`` is picked in the window (the model at its defaults), and a one-line note:
    the new model's suggested settings are set (and why); leaving a model that suggested some, the ones still at
    its suggestion go back to the shared defaults. The note is empty where nothing else changed."""
    before = suggestion(config.model.name)
    out = with_values(config, {"model.name": name}) if config.model.name != name else config.copy()
    back: dict[str, Any] = {}
    if before is not None:
        shared = RunConfig()
        back = {key: value_of(shared, key) for key, value in before.settings.items()
                if not key.startswith("model.") and value_of(out, key) == value}
        out = with_values(out, back)
    found = suggestion(name)
    if found is not None:
        out = with_suggested(out)
        return out, f"Set for {name}: {in_words(found.settings)}; {found.why}. Edit any to change."
    changed = {key: value for key, value in back.items() if value_of(config, key) != value}
    return out, (f"Back to the shared defaults: {in_words(changed)}." if changed else "")


def is_applied(config: RunConfig) -> bool:
    """Whether ``config`` has every setting its model suggests (True when it suggests none)."""
    found = suggestion(config.model.name)
    return found is None or all(value_of(config, key) == value for key, value in found.settings.items())


def value_of(config: RunConfig, key: str) -> Any:
    """The value of ``section.key`` in ``config`` (None when the section's entry has no such parameter)."""
    section, _, name = key.partition(".")
    part = getattr(config, section)
    if section in CHOICE_SECTIONS:
        return part.name if name == "name" else part.params.get(name)
    return getattr(part, name, None)


def in_words(settings: dict[str, Any]) -> str:
    """The settings as the window's fields name them: "6 epochs, batch size 32, adam learning rate 0.003,
    cosine schedule, dropout 0.2"."""
    left = dict(settings)
    parts = []
    if "train.epochs" in left:
        epochs = left.pop("train.epochs")
        parts.append(f"{epochs} epoch{'' if epochs == 1 else 's'}")
    if "train.batch_size" in left:
        parts.append(f"batch size {left.pop('train.batch_size')}")
    optimizer, lr = left.pop("optimizer.name", None), left.pop("optimizer.lr", None)
    if optimizer is not None or lr is not None:
        parts.append(" ".join(p for p in (optimizer, f"learning rate {lr:g}" if lr is not None else None) if p))
    if "schedule.name" in left:
        parts.append(f"{left.pop('schedule.name')} schedule")
    parts += [f"{key.partition('.')[2].replace('_', ' ')} {_word(value)}" for key, value in left.items()]
    return ", ".join(parts)


def _word(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)
