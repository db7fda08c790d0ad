"""``studio runs``: the runs in the run store, newest first (``--json``: ``{"runs": [...]}``)."""

from __future__ import annotations

import argparse

from studio.cli._shared import add_output_args, emit_json

COMMANDS = ("runs",)


def cmd_runs(args: argparse.Namespace) -> int:
    from studio.core.runs.store import RunStore

    runs = RunStore().list()
    if args.json:
        emit_json({"runs": [r.to_json() for r in runs]})
        return 0
    if not runs:
        print("No runs yet: start one with `studio train` (headless) or the Train button in the window (`studio`).")
        return 0
    for r in runs:
        acc = r.summary.get("test_acc")
        acc_txt = f"{acc:.4f}" if isinstance(acc, (int, float)) else "-"
        print(f"{r.id}  {r.status:<11}  test_acc {acc_txt}  {r.name}")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    runs = sub.add_parser("runs", help="list the runs in the run store")
    add_output_args(runs, what="the runs")
    runs.set_defaults(func=cmd_runs)
