"""``studio search``: a hyperparameter search on Optuna that drives Studio's own queue.

``studio search --space 'optimizer.lr=1e-4..1e-1:log' --space 'train.batch_size=32,64,128' --trials 30 --sampler
tpe --pruner asha --metric val/acc --direction max`` asks Optuna for trials, queues each as a run (a detached
scheduler starts them as the devices allow), stops the trials the pruner picks (marked ``pruned``, resumable) and
prints the best settings. The study lives in ``STUDIO_HOME/search.db`` (``--study NAME``; the same name again
continues it, after a restart too). ``--seeds 0,1,2,3,4`` queues the best settings once per seed at the end.
``--list`` names the studies; ``--report NAME`` prints one's trials, best and importances (fANOVA). Ctrl+C stops
the search and its trials in flight. With ``--json`` the last stdout line is one JSON object. Exit codes: 0 done or
stopped, 2 a mistake you can fix, 3 when every trial failed.
"""

from __future__ import annotations

import argparse
import signal
import sys
import time
from typing import Any

from studio.cli._shared import StderrProgress, add_config_args, add_output_args, emit_json, load_config

COMMANDS = ("search",)
DIRECTIONS = ("max", "min")


def _known_metrics(store: Any, metric: str) -> set[str]:
    """The metric names runs logged, read only when ``metric`` is not one of Studio's own (a whole-store scan)."""
    from studio.core.vocab import Metric

    return set() if metric in {m.value for m in Metric} else store.metric_names()


def default_parallel(config: Any) -> int:
    """Trials at once: as many as the queue runs together (CPU slots, or GPUs ÷ processes per run)."""
    from studio.engine.training.scheduler import count_gpus, cpu_slots_setting

    if config.hardware.device == "cuda":
        return max(1, count_gpus() // max(1, config.hardware.processes))
    return max(1, cpu_slots_setting())


def spec_from_args(args: argparse.Namespace, store: Any) -> Any:
    """The search's spec from the arguments (a study named without --space continues with its own)."""
    from studio.core.errors import ConfigError
    from studio.core.runs.seed_groups import parse_seeds
    from studio.core.search.space import parse_space
    from studio.core.search.study import DIRECTIONS as WORDS
    from studio.core.search.study import SearchSpec, load_spec, study_names

    name = args.study or time.strftime("search-%Y%m%d-%H%M%S")
    if not args.space:
        if args.study and args.study in study_names(store.home):
            _, spec = load_spec(store.home, args.study)
        else:
            raise ConfigError("give the search at least one --space SECTION.KEY=VALUES, e.g. --space "
                              "'optimizer.lr=1e-4..1e-1:log' (or --study NAME to continue a study)")
    else:
        base = load_config(args)
        spec = SearchSpec(name, parse_space(args.space, base), base)
        spec.metric, spec.direction = args.metric, WORDS[args.direction]
        spec.sampler, spec.pruner, spec.seed = args.sampler, args.pruner, args.seed
    spec.trials = args.trials
    spec.timeout_s = args.minutes * 60 if args.minutes is not None else None
    if spec.trials is None and spec.timeout_s is None:
        spec.trials = 20
    spec.parallel = args.parallel or default_parallel(spec.base)
    spec.repeat_seeds = parse_seeds(args.seeds) if args.seeds else []
    spec.validate(_known_metrics(store, spec.metric))
    return spec


def cmd_search(args: argparse.Namespace) -> int:
    from studio.core.runs.store import RunStore

    store = RunStore()
    if args.list:
        return _list(store, args)
    if args.report:
        return _report(store, args)
    from studio.core.contracts.progress import Cancelled
    from studio.core.search.driver import SearchDriver
    from studio.engine.training.scheduler import ensure_scheduler

    spec = spec_from_args(args, store)
    start = None if args.no_start else ensure_scheduler
    log = (lambda text: None) if args.quiet else (lambda text: print(f"\r{text}", file=sys.stderr))
    driver = SearchDriver(store, spec, start, log=log)
    bar = StderrProgress(args.quiet)
    stops: list[int] = []

    def on_signal(signum: int, _frame: Any) -> None:
        stops.append(signum)
        if len(stops) == 1:
            print("\nstopping the search (its trials in flight stop with a checkpoint)…", file=sys.stderr)

    def progress(fraction: float, text: str) -> None:
        bar(fraction, text)
        if stops:
            raise Cancelled("stopped")

    old = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    print(f"study {spec.name}: {'; '.join(spec.space.texts())}; {spec.sampler} sampler, {spec.pruner} pruner, "
          f"{spec.direction[:3]} {spec.metric}, {spec.parallel} at a time (storage {driver.outcome.storage})",
          file=sys.stderr)
    try:
        outcome = driver.run(progress, should_stop=lambda: bool(stops))
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)
        bar.close()
    result = outcome.to_json()
    if args.json:
        emit_json(result)
    else:
        print(_summary(result, spec.metric), file=sys.stderr)
    return 3 if outcome.trials and not outcome.complete and not outcome.pruned and not outcome.stopped else 0


def _summary(r: dict[str, Any], metric: str) -> str:
    lines = [f"study {r['study']}: {r['trials']} trials ({r['complete']} complete, {r['pruned']} pruned, "
             f"{r['failed']} failed) in {r['seconds']:.0f} s" + (" — stopped" if r["stopped"] else "")]
    if r["best_value"] is not None:
        settings = ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in
                             r["best_params"].items())
        lines.append(f"best {metric} {r['best_value']:.4f}: {settings} (trial {r['best_trial']}, run "
                     f"{r['best_run_id']})")
    if r["compute_fraction"] is not None and r["pruned"]:
        lines.append(f"pruning trained {r['epochs_trained']} of {r['epochs_full']} epochs "
                     f"({r['compute_fraction']:.0%} of running every trial to the end)")
    if r["repeat_run_ids"]:
        lines.append(f"queued the best settings over {len(r['repeat_run_ids'])} seeds: "
                     f"{', '.join(r['repeat_run_ids'])}")
    return "\n".join(lines)


def _list(store: Any, args: argparse.Namespace) -> int:
    from studio.core.search.study import study_names

    names = study_names(store.home)
    if args.json:
        emit_json({"studies": names})
    elif not names:
        print("no study yet: `studio search --space …` starts one", file=sys.stderr)
    for name in names if not args.json else []:
        print(name)
    return 0


def _report(store: Any, args: argparse.Namespace) -> int:
    from studio.core.search.report import study_report

    report = study_report(store.home, args.report)
    if args.json:
        emit_json(report)
        return 0
    print(f"study {report['study']}: {'; '.join(report['space'])} ({report['direction'][:3]} {report['metric']})")
    for row in report["trials"]:
        value = f"{row['value']:.4f}" if row["value"] is not None else "-"
        params = ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in row["params"].items())
        print(f"  #{row['number']:<3} {row['state']:<9} {value:>8}  {params}  {row['run_id'] or ''}")
    if report["importances"]:
        print("importance (fANOVA): " + ", ".join(f"{k} {v:.2f}" for k, v in report["importances"].items()))
    elif report["importance_note"]:
        print(report["importance_note"])
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    from studio.core.search.study import PRUNERS, SAMPLERS

    p = sub.add_parser("search", help="search hyperparameters with Optuna over the run queue (pruning bad trials)")
    add_config_args(p, config_help="the base config the search varies (default: the built-in default)")
    p.add_argument("--space", action="append", default=[], metavar="SECTION.KEY=VALUES",
                   help="a setting to search: a range 1e-4..1e-1 (log-uniform where the setting is log-scaled; "
                        ":log or :linear to say) or a list 32,64,128 (repeatable)")
    p.add_argument("--trials", type=int, default=None, help="trials in all (default 20 without --minutes)")
    p.add_argument("--minutes", type=float, default=None, help="a time budget: ask no new trial after this long")
    p.add_argument("--sampler", choices=SAMPLERS, default="tpe",
                   help="tpe (default), random, qmc (quasi-random Sobol) or grid (lists only)")
    p.add_argument("--pruner", choices=PRUNERS, default="asha",
                   help="stop bad trials early at an epoch's end: asha (successive halving, default), hyperband, "
                        "median, or none")
    p.add_argument("--metric", default="val/acc", help="the metric to optimise, as the runs log it (default val/acc)")
    p.add_argument("--direction", choices=DIRECTIONS, default="max", help="max (default) or min")
    p.add_argument("--study", help="the study's name in STUDIO_HOME/search.db (an existing one continues)")
    p.add_argument("--parallel", type=int, default=None,
                   help="trials at once (default: as many as the queue runs together)")
    p.add_argument("--seed", type=int, default=0, help="the sampler's seed (default 0)")
    p.add_argument("--seeds", metavar="SEEDS",
                   help="at the end, queue the best settings once per seed, e.g. 0,1,2,3,4 (a seed group)")
    p.add_argument("--no-start", action="store_true",
                   help="do not start a scheduler (one serves the queue already, e.g. `studio queue run`)")
    p.add_argument("--list", action="store_true", help="list the studies and exit")
    p.add_argument("--report", metavar="STUDY", help="print a study's trials, best and importances and exit")
    add_output_args(p, quiet=True, what="the search's outcome")
    p.set_defaults(func=cmd_search)
