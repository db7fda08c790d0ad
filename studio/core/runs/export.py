"""Export runs' metrics as one CSV (File > Export…, `studio export --csv`): a row per (run, metric, step). Qt-free."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

COLUMNS = ("run_id", "run_name", "metric", "step", "value")


def export_metrics_csv(store: Any, run_ids: list[str], path: str | Path) -> int:
    """Write the runs' metrics to ``path`` (via a temp file, then renamed; ``core/host/outfiles.py``: one OutputError
    for a target that cannot be written, nothing half-written); returns the rows written."""
    from studio.core.host.outfiles import writing

    rows = 0
    with writing(path) as tmp, tmp.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(COLUMNS)
        for run_id in run_ids:
            name = store.get(run_id).name
            for metric, (steps, values) in sorted(store.metrics(run_id).items()):
                for step, value in zip(steps, values, strict=True):
                    writer.writerow((run_id, name, metric, step, repr(float(value))))
                    rows += 1
    return rows
