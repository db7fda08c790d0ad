"""``studio runs``: the runs in the run store, newest first (``--json``: ``{"runs": [...]}``).

``--filter EXPR`` keeps the runs the filter language of core/runs/run_filter.py matches (the run list's search box
speaks the same), ``--sort COLUMN`` (``--desc``) orders them, ``--limit N`` keeps the first N after both.
``--tag RUN TAG…`` / ``--untag RUN TAG…`` change a run's tags (exit 2 for an unknown run or a bad tag).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from studio.cli._shared import add_output_args, emit_json

if TYPE_CHECKING:
    from studio.core.runs.store import RunInfo, RunStore

COMMANDS = ("runs",)

FILTER_HELP = ("keep the runs that match every word: plain words search name, id, status, dataset, model, optimizer, "
               "tags and notes; key:value for a field or setting (status:finished, model:mlp, tag:baseline, "
               "optim.lr:0.1); comparisons on numbers (test_acc>0.8, epochs>=10). Quote it in the shell")


def cmd_runs(args: argparse.Namespace) -> int:
    """A bad filter, sort column, limit, run or tag is a ConfigError: ``studio: error: …``, exit 2 (cli.main)."""
    from studio.core.runs.names import shown_names
    from studio.core.runs.store import RunStore

    store = RunStore()
    if args.tag or args.untag:
        return _retag(store, args)
    runs = _chosen(store, args)
    names = shown_names(store)  # the name every view shows (core/runs/names.py)
    for run in runs:
        run.name = names.get(run.id, run.name)
    if args.json:
        emit_json({"runs": [r.to_json() for r in runs]})
        return 0
    if not runs:
        if args.filter:
            print(f"No run matches {args.filter!r}.")
        else:
            print("No runs yet: start one with `studio train` (headless) or the Train button in the window "
                  "(`studio`).")
        return 0
    for r in runs:
        acc = r.summary.get("test_acc")
        acc_txt = f"{acc:.4f}" if isinstance(acc, (int, float)) else "-"
        tags = f"  [{', '.join(r.tags)}]" if r.tags else ""
        print(f"{r.id}  {r.status:<11}  test_acc {acc_txt}  {r.name}{tags}")
    return 0


def _chosen(store: RunStore, args: argparse.Namespace) -> list[RunInfo]:
    """The runs to list: filtered, sorted, limited (ConfigError for a bad filter, sort column or limit)."""
    from studio.core.errors import ConfigError
    from studio.core.runs import run_filter
    from studio.core.runs.names import shown_names

    if args.limit is not None and args.limit < 0:
        raise ConfigError(f"--limit {args.limit}: give 0 or more runs")
    runs = store.list()
    if not args.filter and not args.sort:
        return runs[:args.limit] if args.limit is not None else runs
    params = store.all_params()
    notes = store.notes()
    # named as the run list names them, so a filter finds the runs the window's filter finds
    names = shown_names(store, runs)
    facts = [run_filter.facts_of(r, params.get(r.id, {}), notes.get(r.id, ""), names.get(r.id, "")) for r in runs]
    by_id = {r.id: r for r in runs}
    if args.filter:
        facts = run_filter.parse(args.filter, run_filter.known_keys(facts)).select(facts)
    if args.sort:
        run_filter.check_sort_column(args.sort, run_filter.known_keys(facts))
        facts = run_filter.sort_runs(facts, args.sort, descending=args.desc)
    chosen = [by_id[f.id] for f in facts]
    return chosen[:args.limit] if args.limit is not None else chosen


def _retag(store: RunStore, args: argparse.Namespace) -> int:
    """``--tag RUN TAG…`` / ``--untag RUN TAG…``: the run's tags afterwards on stdout (``--json``: its listing)."""
    from studio.core.errors import ConfigError

    words = args.tag or args.untag
    if len(words) < 2:
        raise ConfigError(f"--{'tag' if args.tag else 'untag'} needs a run and at least one tag, "
                          "for example --tag 2c47 baseline")
    run = store.resolve(words[0])
    if args.tag:
        store.add_tags([run.id], words[1:])
    else:
        store.remove_tags([run.id], words[1:])
    run = store.get(run.id)
    if args.json:
        emit_json({"runs": [run.to_json()]})
    else:
        print(f"{run.id}  tags: {', '.join(run.tags) or '(none)'}")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    runs = sub.add_parser(
        "runs", help="list the runs in the run store (filter, sort, limit) or tag them",
        description="List the runs in the run store, newest first. Examples: studio runs --filter 'tag:baseline "
                    "test_acc>0.8' --sort test_acc --desc --limit 5;  studio runs --tag 2c47 baseline sweep1;  "
                    "studio runs --untag 2c47 sweep1")
    add_output_args(runs, what="the runs")
    runs.add_argument("--filter", metavar="EXPR", default="", help=FILTER_HELP)
    runs.add_argument("--sort", metavar="COLUMN", default="",
                      help="order by a column (name, id, status, created, test_acc, val_acc, steps, tags, notes), "
                           "a summary number or a setting (optimizer.lr); ascending, empty last")
    runs.add_argument("--desc", action="store_true", help="with --sort: largest first")
    runs.add_argument("--limit", metavar="N", type=int, default=None,
                      help="show at most N runs (after --filter and --sort)")
    tagging = runs.add_mutually_exclusive_group()
    tagging.add_argument("--tag", nargs="+", metavar=("RUN", "TAG"), default=None,
                         help="add tags (one word each) to a run (id, unique part of the id, or folder)")
    tagging.add_argument("--untag", nargs="+", metavar=("RUN", "TAG"), default=None, help="take tags off a run")
    runs.set_defaults(func=cmd_runs)
