"""What differs between runs: the settings whose values are not the same in every run, a two-run config
diff, and the compare table (differing settings plus final metrics) that the GUI and ``studio compare`` show.

The compare table's "what differs" is ``differing_keys``; runs are named as everywhere (``core/runs/names.py``).
Settings are the flat ``section.key`` params of the run store (``RunStore.params``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from studio.core.contracts.runs import CompareGroup, CompareRow, CompareTable
from studio.core.runs.names import shown_names
from studio.core.runs.settings_diff import MISSING, differing_keys, format_value, hashable, key_order

NOT_METRICS = frozenset({"world_size"})  # summary numbers that restate a setting
# Final metrics from a run's summary, in this order first; other numeric summary values follow.
METRIC_ORDER = ("test_acc", "val_acc", "test_loss", "val_loss", "train_loss", "epochs", "steps", "seconds")


def format_metric(value: Any) -> str:
    """A final metric as the run list shows it: four decimals (large numbers to six significant digits)."""
    if isinstance(value, float) and math.isfinite(value) and abs(value) < 1000:
        return f"{value:.4f}"
    return format_value(value)


@dataclass
class DiffRow:
    key: str
    left: Any
    right: Any

    @property
    def same(self) -> bool:
        return hashable(self.left) == hashable(self.right)


def config_diff(left: dict[str, Any], right: dict[str, Any], only_different: bool = False) -> list[DiffRow]:
    """Every setting of two runs side by side, in section order (``only_different``: just the changes)."""
    keys = sorted(set(left) | set(right), key=key_order)
    rows = [DiffRow(k, left.get(k, MISSING), right.get(k, MISSING)) for k in keys]
    return [r for r in rows if not r.same] if only_different else rows


def final_metrics(summary: Mapping[str, Any]) -> dict[str, float | int]:
    """The numeric values of a run's summary (its final metrics), known ones first."""
    numbers = {k: v for k, v in summary.items()
               if isinstance(v, (int, float)) and not isinstance(v, bool) and k not in NOT_METRICS}
    ordered = [k for k in METRIC_ORDER if k in numbers] + sorted(k for k in numbers if k not in METRIC_ORDER)
    return {k: numbers[k] for k in ordered}


def compare_runs(store: Any, run_ids: Sequence[str]) -> CompareTable:
    """The compare table of some runs of a ``RunStore``: for each run its id, name (as the run list names it,
    ``core/runs/names.py``), status, the value of every differing setting and its final metrics; plus the lists
    of differing settings and metrics."""
    infos = [store.get(r) for r in run_ids]
    names = shown_names(store)  # the names the run list shows
    params = [store.params(i.id) for i in infos]
    keys = differing_keys(params)
    finals = [final_metrics(i.summary) for i in infos]
    metric_names: list[str] = []
    for f in finals:
        metric_names += [m for m in f if m not in metric_names]
    metric_names.sort(key=lambda m: (METRIC_ORDER.index(m) if m in METRIC_ORDER else len(METRIC_ORDER), m))
    runs: list[CompareRow] = [{"run_id": i.id, "name": names.get(i.id, i.name), "status": i.status,
             "settings": {k: p.get(k, MISSING) for k in keys},
             "metrics": {m: f.get(m) for m in metric_names}}
            for i, p, f in zip(infos, params, finals, strict=True)]
    return {"differing": keys, "metric_names": metric_names, "runs": runs,
            "groups": compare_groups({i.id: p for i, p in zip(infos, params, strict=True)}, runs, metric_names)}


def compare_groups(params: Mapping[str, Mapping[str, Any]], rows: Sequence[CompareRow],
                   metric_names: Sequence[str]) -> list[CompareGroup]:
    """The seed groups among the compared runs (``core/runs/seed_groups.py``), each final metric's spread."""
    from studio.core.runs.seed_groups import seed_groups, summary_spreads

    by_id = {r["run_id"]: r for r in rows}
    out: list[CompareGroup] = []
    for g in seed_groups(params):
        spreads = summary_spreads([by_id[r]["metrics"] for r in g.run_ids], metric_names)
        out.append({"id": g.id, "name": g.name, "run_ids": list(g.run_ids), "seeds": list(g.seeds), "n": g.n,
                    "metrics": {m: s.to_dict() for m, s in spreads.items()}})  # type: ignore[misc]
    return out


@dataclass
class Axis:
    """One axis of a parallel-coordinates plot: values mapped to 0…1, with tick labels."""

    name: str
    positions: list[float | None]  # per run; None: the run has no value (missing metric)
    ticks: list[tuple[float, str]]
    log: bool = False


def _numeric(values: list[Any]) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
               for v in values if v is not None)


def make_axis(name: str, values: list[Any], fmt: Callable[[Any], str] = format_value) -> Axis:
    """Numbers on a linear axis (log when all positive and spanning ×20 or more); anything else as evenly
    spaced categories in sorted order. Equal values sit in the middle."""
    present = [v for v in values if v is not None]
    if present and _numeric(present):
        lo, hi = min(present), max(present)
        log = lo > 0 and hi / lo >= 20
        f = math.log10 if log else float
        a, b = f(lo), f(hi)

        def pos(v: float) -> float:
            return 0.5 if b == a else (f(v) - a) / (b - a)

        ticks = sorted({(pos(v), fmt(v)) for v in present})
        return Axis(name, [None if v is None else pos(v) for v in values], ticks, log)
    cats = sorted({format_value(v) for v in values}, key=str)
    step = 1 / (len(cats) - 1) if len(cats) > 1 else 0.0
    where = {c: (i * step if len(cats) > 1 else 0.5) for i, c in enumerate(cats)}
    return Axis(name, [where[format_value(v)] for v in values], [(where[c], c) for c in cats])


def parallel_axes(table: CompareTable, metric: str) -> list[Axis]:
    """The axes of a parallel-coordinates view of a ``compare_runs`` table: one per differing setting, then
    the chosen metric."""
    runs = table["runs"]
    axes = [make_axis(k, [r["settings"][k] for r in runs]) for k in table["differing"]]
    axes.append(make_axis(metric, [r["metrics"].get(metric) for r in runs], format_metric))
    return axes
