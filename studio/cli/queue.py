"""``studio queue add|sweep|list|cancel|run``: queue runs that a scheduler starts when their devices are free.

``add`` and ``sweep`` start a detached scheduler (unless ``--no-start`` or one is serving), so the runs go
on after the terminal closes; ``run`` serves the queue in the foreground until it is empty (for scripts,
clusters and systemd). With ``--json`` the last stdout line is one JSON object.
"""

from __future__ import annotations

import argparse
import sys

from studio.cli._shared import add_config_args, add_output_args, load_config

COMMANDS = ("queue",)


def _queue():
    from studio.core.runs.queue import RunQueue
    from studio.core.runs.store import RunStore

    return RunQueue(RunStore())


def _start(queue, args: argparse.Namespace) -> None:
    if args.no_start:
        return
    from studio.engine.training.scheduler import ensure_scheduler

    pid = ensure_scheduler(queue.store)
    if pid:
        print(f"scheduler started (pid {pid}); log: {queue.store.home / 'queue.log'}", file=sys.stderr)


def _seeded(config, args: argparse.Namespace) -> list:
    """The config once per ``--seeds`` seed (a seed group), or as it is."""
    if not args.seeds:
        return [config]
    from studio.core.runs.seed_groups import parse_seeds

    return [config.with_overrides([f"train.seed={seed}"]) for seed in parse_seeds(args.seeds)]


def cmd_add(args: argparse.Namespace) -> int:
    from studio.cli._shared import emit_json

    configs = _seeded(load_config(args), args)  # every seed read before anything is queued
    queue = _queue()
    infos = [queue.add(config, args.name or "") for config in configs]
    positions = queue.positions()
    _start(queue, args)
    if args.json and not args.seeds:
        info = infos[0]
        emit_json({"run_id": info.id, "name": info.name, "position": positions.get(info.id, 0),
                   "run_dir": str(info.dir)})
    elif args.json:
        emit_json({"run_ids": [i.id for i in infos], "names": [i.name for i in infos],
                   "positions": [positions.get(i.id, 0) for i in infos]})
    else:
        for info in infos:
            print(f"queued {info.id} at position {positions.get(info.id, 0)}: {info.name}", file=sys.stderr)
    return 0


def cmd_sweep(args: argparse.Namespace) -> int:
    from studio.cli._shared import emit_json
    from studio.core.config.sweep import sweep_configs, sweep_values
    from studio.core.errors import ConfigError

    axes = {}
    for item in args.vary:
        key, sep, spec = item.partition("=")
        if not sep or "." not in key:
            raise ConfigError(f"--vary takes section.key=VALUES, e.g. optimizer.lr=0.001,0.01; got {item!r}")
        axes[key.strip()] = sweep_values(spec)
    if not axes:
        raise ConfigError("give at least one --vary section.key=VALUES")
    points = sweep_configs(load_config(args), axes)  # every point validated before anything is queued
    runs = [(seeded, name) for config, name in points for seeded in _seeded(config, args)]
    if args.seeds:  # the sweep's name would be the same for every seed: the naming rule names each run instead
        runs = [(config, "") for config, _ in runs]
    queue = _queue()
    infos = [queue.add(config, f"{args.name} {name}".strip() if args.name else name) for config, name in runs]
    _start(queue, args)
    if args.json:
        emit_json({"run_ids": [i.id for i in infos], "names": [i.name for i in infos]})
    else:
        for info in infos:
            print(f"queued {info.id}: {info.name}", file=sys.stderr)
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    from studio.cli._shared import emit_json

    entries = _queue().entries(include_over=args.all)
    if args.json:
        emit_json({"queue": [e.to_json() for e in entries]})
        return 0
    if not entries:
        print("the queue is empty", file=sys.stderr)
    for e in entries:
        where = f"#{e.position}" if e.position else e.state
        devices = f"  on {', '.join(e.devices)}" if e.devices and e.state == "running" else ""
        print(f"{where:<9} {e.run_id}  {e.status:<9} {e.name}{devices}")
    return 0


def cmd_cancel(args: argparse.Namespace) -> int:
    from studio.cli._shared import emit_json

    queue = _queue()
    out = []
    for ref in args.run:
        run_id = queue.store.resolve(ref).id
        out.append({"run_id": run_id, "result": queue.cancel(run_id)})
        print(f"{run_id}: {out[-1]['result']}", file=sys.stderr)
    if args.json:
        emit_json({"cancelled": out})
    return 0


def cmd_move(args: argparse.Namespace) -> int:
    from studio.cli._shared import emit_json

    queue = _queue()
    run_id = queue.store.resolve(args.run).id
    position = queue.move(run_id, args.position)
    print(f"{run_id}: #{position} in the queue", file=sys.stderr)
    if args.json:
        emit_json({"run_id": run_id, "position": position})
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from studio.engine.training.scheduler import serve

    return serve(cpu_slots=args.cpu_slots, idle_exit_s=args.idle_exit, warm=not args.cold)


def add_parser(sub: argparse._SubParsersAction) -> None:
    queue = sub.add_parser("queue", help="queue runs; a scheduler starts each when its devices are free")
    qsub = queue.add_subparsers(dest="queue_command", required=True)

    def config_args(p: argparse.ArgumentParser) -> None:
        add_config_args(p)
        p.add_argument("--name", help="a name for the run(s)")
        p.add_argument("--no-start", action="store_true", help="only queue; do not start a scheduler")
        p.add_argument("--seeds", metavar="SEEDS", help="queue each run once per seed, e.g. 0,1,2,3,4 or 0-4 (a seed "
                       "group: drawn as its mean and a band)")
        add_output_args(p, what="the queued runs")

    add = qsub.add_parser("add", help="queue one run")
    config_args(add)
    add.set_defaults(func=cmd_add)
    sweep = qsub.add_parser("sweep", help="queue one run per value (or pair of values) of one or two settings")
    config_args(sweep)
    sweep.add_argument("--vary", action="append", default=[], metavar="SECTION.KEY=VALUES",
                       help="values: a list 0.001,0.01,0.1, a range 16:64:16 (stop included) or 1e-4:1e-1:log4 "
                            "(log-spaced); two --vary give every pair")
    sweep.set_defaults(func=cmd_sweep)
    lst = qsub.add_parser("list", help="the running and waiting runs, in queue order")
    lst.add_argument("--all", action="store_true", help="also the runs that are over or cancelled")
    add_output_args(lst, what="the queue")
    lst.set_defaults(func=cmd_list)
    cancel = qsub.add_parser("cancel", help="cancel a waiting run (it never starts) or stop a running one")
    cancel.add_argument("run", nargs="+", help="run id (or a unique prefix)")
    add_output_args(cancel, what="what was cancelled")
    cancel.set_defaults(func=cmd_cancel)
    move = qsub.add_parser("move", help="move a waiting run to another place in the queue (1: it starts next)")
    move.add_argument("run", help="run id (or a unique prefix)")
    move.add_argument("position", type=int, help="its new place among the waiting runs (1: next)")
    add_output_args(move, what="the run's new place")
    move.set_defaults(func=cmd_move)
    run = qsub.add_parser("run", help="serve the queue in the foreground until it is empty")
    run.add_argument("--cpu-slots", type=int, default=None, help="CPU runs at a time (default 1)")
    run.add_argument("--idle-exit", type=float, default=3.0, help="seconds to wait for more runs before exiting")
    run.add_argument("--cold", action="store_true",
                     help="spawn every run afresh instead of forking them from a warm back end")
    run.set_defaults(func=cmd_run)
