"""``"module:name"`` targets: the one way Studio names code that is imported only when it is needed.

Registries name their builders this way, the task catalog its entry points, the window its tabs and pages, the
paper checks their runners; so a module that lists them (and the GUI that reads the lists) imports no torch.
:func:`resolve_target` is the one place such a string becomes the object it names.
"""

from __future__ import annotations

import importlib
from typing import Any


def resolve_target(target: str) -> Any:
    """The object ``target`` (``"package.module:name"``) names, importing its module (ValueError without a colon)."""
    module, colon, name = target.partition(":")
    if not colon or not module or not name:
        raise ValueError(f"a target is 'module:name', not {target!r}")
    return getattr(importlib.import_module(module), name)


def target_of(obj: Any) -> str:
    """The ``"package.module:name"`` target naming a module-level class or function (the inverse of
    :func:`resolve_target`)."""
    return f"{obj.__module__}:{obj.__qualname__}"
