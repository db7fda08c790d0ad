"""What ``run.log`` accepts: metric names and values, checked cheaply on the training thread.

- A name is text; control characters (a newline, a tab) become spaces and the ends are trimmed, said once; an
  empty name is refused (said once). Any other character is kept: the store and metrics.csv take any text.
- A value is a Python or numpy number, a truth value (1 or 0), or a one-element tensor. Tensors are kept as they are
  here and read (``.item()``) on the writer's thread, so logging a CUDA loss never waits for the GPU on the
  training step. NaN and ±inf are kept and shown, as TensorBoard does. Text, None, a list or a tensor of several
  values is refused, said once per name.
"""

from __future__ import annotations

import math
import numbers
import re
from typing import Any

from studio.track.warn import warn_once

_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")
MAX_NAME = 200


def clean_name(name: Any) -> str | None:
    """The name as stored, or None (refused, said once)."""
    text = name if isinstance(name, str) else str(name)
    clean = _CONTROL.sub(" ", text).strip()[:MAX_NAME]
    if not clean:
        warn_once(f"name:{text!r}", f"a metric name is empty ({name!r}); its values are not recorded")
        return None
    if clean != text:
        warn_once(f"name:{text!r}", f"metric name {text!r} is recorded as {clean!r} (no control characters, "
                                    f"at most {MAX_NAME} characters, no spaces at the ends)")
    return clean


def quick_value(name: str, value: Any) -> Any:
    """``value`` as a float when it is a plain number; a tensor or array as it is (read later by ``as_float``);
    None when it is no number (said once for the name)."""
    if isinstance(value, float):
        return value
    if isinstance(value, numbers.Real):  # int, bool, numpy scalars
        return float(value)
    if hasattr(value, "item") and hasattr(value, "shape"):  # a torch tensor or numpy array: read off-thread
        return value.detach() if hasattr(value, "detach") else value
    _refuse(name, value)
    return None


def as_float(name: str, value: Any) -> float | None:
    """A kept value as a float (a one-element tensor's item); None, said once, for a tensor of several values."""
    if isinstance(value, float):
        return value
    try:
        if _count(value) != 1:
            _refuse(name, value)
            return None
        return float(value.item())
    except (TypeError, ValueError, RuntimeError):
        _refuse(name, value)
        return None


def _count(value: Any) -> int:
    numel = getattr(value, "numel", None)
    if callable(numel):
        return int(numel())
    return math.prod(getattr(value, "shape", ()) or (1,))


def _refuse(name: str, value: Any) -> None:
    shape = getattr(value, "shape", None)
    what = f"a tensor of shape {tuple(shape)}" if shape is not None else f"{type(value).__name__} {value!r:.60}"
    warn_once(f"value:{name}", f"{name!r} was given {what}, not a number; a metric is one number per step "
                               "(a tensor's .mean() or .item() is one), so it is not recorded")
