"""``studio compare RUN RUN... [--json] [--record FILE]``: the settings that differ between runs and their final
metrics.

With two runs, ``--diff`` prints every setting side by side (``--diff --changed`` only those that differ).
``--record FILE`` also records the runs' curves for slides: growing step by step as an MP4 or GIF, or the whole
runs as a PNG or SVG still, at ``--size`` and ``--style`` — what "File › Record the curves…" makes
(``gui/plots/curves_reel.py``, through ``cli/_record.py``).
JSON: ``{"differing": [keys], "metric_names": [...], "runs": [{run_id, name, status, settings, metrics}], "groups":
[{id, name, run_ids, seeds, n, metrics: {name: {mean, std, n, ci95}}}]}`` — ``groups``: the compared runs that differ
only in the seed (with ``--diff``: ``"diff": [{key, left, right, same}]``; with ``--record``: ``"recorded": FILE``).
"""

from __future__ import annotations

import argparse
import sys

from studio.cli._record import FORMATS, add_record_args
from studio.cli._shared import add_output_args
from studio.core.contracts.runs import CompareTable, MetricSpread
from studio.core.runs.compare import format_value

COMMANDS = ("compare",)


def _table(rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows)


def cmd_compare(args: argparse.Namespace) -> int:
    from studio.cli._record import check_recording, curves_reel, record_into
    from studio.core.errors import ConfigError
    from studio.core.runs.compare import compare_runs, config_diff
    from studio.core.runs.store import RunStore

    size = check_recording(args.record, args.size)
    store = RunStore()
    ids = [store.resolve(r).id for r in args.runs]
    if len(ids) < 2:
        raise ConfigError("compare needs at least two runs")
    result = compare_runs(store, ids)
    if args.diff:
        if len(ids) != 2:
            raise ConfigError("--diff compares exactly two runs")
        rows = config_diff(store.params(ids[0]), store.params(ids[1]), only_different=args.changed)
        result["diff"] = [{"key": r.key, "left": r.left, "right": r.right, "same": r.same} for r in rows]
    failed = None
    if args.record:  # the comparison is printed all the same
        failed = record_into(result, lambda: curves_reel(store, ids, args.style == "projector"), args.record, size)
    print_comparison(args, result)
    if "recorded" in result and not args.json:
        print(f"recorded: {result['recorded']}", file=sys.stderr)
    if failed is not None:
        raise failed
    return 0


def print_comparison(args: argparse.Namespace, result: CompareTable) -> None:
    """The comparison as one JSON line, the two runs' settings side by side (``--diff``) or the table."""
    from studio.cli._shared import emit_json

    if args.json:
        emit_json(result)
        return
    if args.diff:
        lines = [["setting", *(run["run_id"] for run in result["runs"]), ""]]
        lines += [[d["key"], format_value(d["left"]), format_value(d["right"]), "" if d["same"] else "≠"]
                  for d in result["diff"]]
        print(_table(lines))
        return
    columns = ["run", "status", *result["differing"], *result["metric_names"]]
    lines = [columns]
    for run in result["runs"]:
        lines.append([run["run_id"], run["status"], *(format_value(v) for v in run["settings"].values()),
                      *(format_value(v) for v in run["metrics"].values())])
    print(_table(lines))
    for group in result["groups"]:  # runs that differ only in the seed: mean ± std over them
        spreads = [f"{m} {_spread(s)}" for m, s in group["metrics"].items()]
        print(f"{group['name']} (seeds {', '.join(map(str, group['seeds']))}): {'; '.join(spreads)}")


def _spread(s: MetricSpread) -> str:
    if s["n"] < 2 or s["std"] is None or s["mean"] is None:
        return format_value(s["mean"])
    return f"{s['mean']:.4g} ± {s['std']:.2g} (n={s['n']})"


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("compare", help="the settings that differ between runs, and their final metrics; --record "
                                       "draws their curves for slides")
    p.add_argument("runs", nargs="+", help="run ids (or unique prefixes, or run directories)")
    p.add_argument("--diff", action="store_true", help="two runs: every setting side by side")
    p.add_argument("--changed", action="store_true", help="with --diff: only the settings that differ")
    add_record_args(p, "also record the runs' curves: " + FORMATS.format(what="growing step by step")
                    + ", as File › Record the curves… does")
    add_output_args(p, what="the comparison")
    p.set_defaults(func=cmd_compare)
