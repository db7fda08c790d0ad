"""The paper checks' latest outcomes, kept in one place whoever ran them (the Paper checks view, a Teaching-lab
lesson's Paper check button, ``studio check``): ``STUDIO_HOME/checks/NAME.json``, one ``CheckOutcome.to_dict()``
each with the time it finished. The Paper checks view shows what is kept here. A check run with a changed set-up
(``studio check --set``) is not kept: it is not the paper's check."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from studio.core.host.paths import studio_home

FOLDER = "checks"


def results_dir(home: Path | None = None) -> Path:
    return (home or studio_home()) / FOLDER


def keep(outcomes: Iterable[dict[str, Any]], home: Path | None = None) -> None:
    """Keep these outcomes (``CheckOutcome.to_dict()``), each replacing its check's last; best effort: a home that
    cannot be written loses the record, never the result."""
    folder = results_dir(home)
    for outcome in outcomes:
        name = str(outcome.get("name", ""))
        if not name or os.sep in name or name.startswith("."):
            continue
        path = folder / f"{name}.json"
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            folder.mkdir(parents=True, exist_ok=True)
            tmp.write_text(json.dumps({**outcome, "finished": time.time()}, allow_nan=False), encoding="utf-8")
            os.replace(tmp, path)
        except (OSError, ValueError):
            tmp.unlink(missing_ok=True)


def kept(home: Path | None = None) -> dict[str, dict[str, Any]]:
    """Every kept outcome by check name (a damaged file is skipped)."""
    out: dict[str, dict[str, Any]] = {}
    folder = results_dir(home)
    if not folder.is_dir():
        return out
    for path in sorted(folder.glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and data.get("name") == path.stem and "verdict" in data:
            out[path.stem] = data
    return out
