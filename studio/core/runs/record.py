"""``run.json`` in each run folder: the run's name, status, message and summary, mirrored from the
database on every change, so a damaged database can be rebuilt without losing a run (core/runs/db.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from studio.core.contracts import layout

RECORD = layout.RECORD


def read_record(run_dir: Path) -> dict[str, Any]:
    try:
        data = json.loads(layout.record_path(run_dir).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _finite(value: Any) -> Any:
    """JSON has no NaN: a missing number is null."""
    if isinstance(value, float) and value != value or value in (float("inf"), float("-inf")):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    return value


def write_record(run_dir: Path, **fields: Any) -> None:
    """Merge ``fields`` into run.json (written to a temporary name and renamed; best effort: a full disk
    must not fail the run over its mirror)."""
    path = layout.record_path(run_dir)
    data = _finite({**read_record(run_dir), **fields})
    tmp = path.with_name(f".{RECORD}.{os.getpid()}.tmp")
    try:
        tmp.write_text(json.dumps(data, allow_nan=False, default=str), encoding="utf-8")
        os.replace(tmp, path)
    except (OSError, ValueError):
        try:
            tmp.unlink()
        except OSError:
            pass
