"""What every headless command prints for scripts: one JSON line (``--json``), NaN as null."""

from __future__ import annotations

import json
import math
from typing import Any


def _clean(value: Any) -> Any:
    """JSON has no NaN: a missing number is null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


def emit_json(obj: dict[str, Any]) -> None:
    print(json.dumps(_clean(obj)), flush=True)
