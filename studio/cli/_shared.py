"""What the headless commands share: one JSON line for scripts (``--json``, NaN as null), the progress
printer on stderr, and ``run_dir_of`` (a run id or folder to its folder)."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
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


def run_dir_of(id_or_dir: str) -> Path:
    """A run directory from a path (any run dir with config.toml) or a run id / id prefix in the store."""
    from studio.core.runs.store import RunStore, is_run_dir

    path = Path(id_or_dir)
    if is_run_dir(path):
        return path

    store = RunStore()
    try:
        return store.resolve(id_or_dir).dir
    finally:
        store.close()


class StderrProgress:
    """``[####      ] 40% text`` on a terminal, a line per tenth otherwise."""

    def __init__(self, quiet: bool = False) -> None:
        self.quiet, self.tty, self.last = quiet, sys.stderr.isatty(), -1

    def __call__(self, fraction: float, text: str) -> None:
        if self.quiet:
            return
        pct = int(fraction * 100)
        if self.tty:
            sys.stderr.write(f"\r[{'#' * (pct * 30 // 100):<30}] {pct:3d}% {text:<30}")
            sys.stderr.flush()
        elif pct // 10 != self.last:
            self.last = pct // 10
            print(f"{pct:3d}% {text}", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.tty and not self.quiet:
            sys.stderr.write("\n")
