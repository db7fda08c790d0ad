"""``studio compare RUN RUN... [--json]``: the settings that differ between runs and their final metrics.

With two runs, ``--diff`` prints every setting side by side (``--diff --changed`` only those that differ).
JSON: ``{"differing": [keys], "metric_names": [...], "runs": [{run_id, name, status, settings, metrics}], "groups":
[{id, name, run_ids, seeds, n, metrics: {name: {mean, std, n, ci95}}}]}`` — ``groups``: the compared runs that differ
only in the seed (with ``--diff``: ``"diff": [{key, left, right, same}]``).
"""

from __future__ import annotations

import argparse

from studio.cli._shared import add_output_args
from studio.core.contracts.runs import MetricSpread
from studio.core.runs.compare import format_value

COMMANDS = ("compare",)


def _table(rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows)


def cmd_compare(args: argparse.Namespace) -> int:
    from studio.cli._shared import emit_json
    from studio.core.errors import ConfigError
    from studio.core.runs.compare import compare_runs, config_diff
    from studio.core.runs.store import RunStore

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
    if args.json:
        emit_json(result)
        return 0
    if args.diff:
        lines = [["setting", ids[0], ids[1], ""]]
        lines += [[d["key"], format_value(d["left"]), format_value(d["right"]), "" if d["same"] else "≠"]
                  for d in result["diff"]]
        print(_table(lines))
        return 0
    columns = ["run", "status", *result["differing"], *result["metric_names"]]
    lines = [columns]
    for run in result["runs"]:
        lines.append([run["run_id"], run["status"], *(format_value(v) for v in run["settings"].values()),
                      *(format_value(v) for v in run["metrics"].values())])
    print(_table(lines))
    for group in result["groups"]:  # runs that differ only in the seed: mean ± std over them
        spreads = [f"{m} {_spread(s)}" for m, s in group["metrics"].items()]
        print(f"{group['name']} (seeds {', '.join(map(str, group['seeds']))}): {'; '.join(spreads)}")
    return 0


def _spread(s: MetricSpread) -> str:
    if s["n"] < 2 or s["std"] is None or s["mean"] is None:
        return format_value(s["mean"])
    return f"{s['mean']:.4g} ± {s['std']:.2g} (n={s['n']})"


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("compare", help="the settings that differ between runs, and their final metrics")
    p.add_argument("runs", nargs="+", help="run ids (or unique prefixes, or run directories)")
    p.add_argument("--diff", action="store_true", help="two runs: every setting side by side")
    p.add_argument("--changed", action="store_true", help="with --diff: only the settings that differ")
    add_output_args(p, what="the comparison")
    p.set_defaults(func=cmd_compare)
