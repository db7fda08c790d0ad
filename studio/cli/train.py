"""``studio train``: a run headless, its progress on stderr (the job's own ETA), Ctrl+C to stop it with a checkpoint.

With ``--json`` the last line on stdout is one JSON object: ``run_id, status, epochs, steps, train_loss,
val_loss, val_acc, test_acc, world_size, device, seconds, run_dir`` (and ``error`` when the run failed).
Exit codes: 0 finished or stopped by the user, 2 a user-fixable error, 3 a run that failed.

``--explain`` prints the run's resolved recipe instead (engine/training/recipe.py) and trains nothing.
``--preset suggested`` takes the settings the model suggests for itself (core/config/suggested.py; ``--set`` wins);
``--preset lamb_large_batch`` You et al. 2020's large-batch recipe (core/config/paper_presets.py).
"""

from __future__ import annotations

import argparse
import math
import signal
import sys
from typing import Any

from studio.cli._shared import StderrProgress, add_config_args, add_output_args, emit_json, load_config
from studio.core.config.global_batch import global_batch_text
from studio.core.config.suggested import PRESETS
from studio.core.contracts.protocol import STAGE
from studio.core.contracts.runs import TrainReport
from studio.core.errors import ConfigError
from studio.core.vocab import JobState, Metric

COMMANDS = ("train",)


def cmd_train(args: argparse.Namespace) -> int:
    from studio.core.runs.store import RunStore

    if args.resume and args.preset:
        raise ConfigError("--resume continues a run with its own settings; drop --preset")
    if args.explain:
        return _explain(args)
    store = RunStore()
    plan = None
    if args.seeds:
        return _train_seeds(args, store)
    if args.resume:
        from studio.engine.training.resume_plan import plan_resume

        if args.config:
            raise ConfigError("--resume continues a run with its own config; drop --config")
        plan = plan_resume(store, args.resume, args.set)
        cfg = plan.config
    else:
        cfg = load_config(args)
    result, code = _train_one(args, store, cfg, plan)
    if args.json:
        emit_json(result)
    return code


def _train_seeds(args: argparse.Namespace, store: Any) -> int:
    """``--seeds 0,1,2``: the same run once per seed, one after another (a seed group); the last stdout line holds
    the group's name, each run's report and every final number's mean, std, n and 95 % half width."""
    from studio.core.runs.seed_groups import group_name, parse_seeds, summary_spreads
    from studio.core.runs.store import flatten

    if args.resume:
        raise ConfigError("--seeds trains new runs; it cannot go with --resume")
    seeds = parse_seeds(args.seeds)
    base = load_config(args)
    reports: list[TrainReport] = []
    code = 0
    for seed in seeds:
        result, code = _train_one(args, store, base.with_overrides([f"train.seed={seed}"]), None)
        reports.append(result)
        if code != 0 or result["status"] == JobState.STOPPED:  # a failure, or Ctrl+C: the other seeds wait
            break
    keys = ("test_acc", "val_acc", "test_loss", "val_loss", "train_loss")
    spreads = summary_spreads(reports, keys)
    name = group_name(flatten(base.to_dict()), seeds[:len(reports)])
    if not args.quiet:
        print(f"{name}: " + ", ".join(f"{k} {s.text()}" for k, s in spreads.items()), file=sys.stderr)
    if args.json:
        emit_json({"group": name, "seeds": seeds[:len(reports)], "runs": reports,
                   "metrics": {k: s.to_dict() for k, s in spreads.items()}})
    return code


def _train_one(args: argparse.Namespace, store: Any, cfg: Any, plan: Any) -> tuple[TrainReport, int]:
    """Train one run to its end, its progress on stderr; its report and exit code."""
    from studio.engine.training.launcher import launch

    job = launch(cfg, store, name=args.name or "", resume=plan)
    print(f"run {job.run_id}: {job.run_dir}", file=sys.stderr)
    print(f"run {job.run_id}: {global_batch_text(cfg)}", file=sys.stderr)  # "run …" lines: the run's facts
    interrupts = []

    def on_signal(signum: int, _frame: Any) -> None:
        interrupts.append(signum)
        if len(interrupts) == 1:
            print("\nstopping (saving a checkpoint)…", file=sys.stderr)
            if signum == signal.SIGTERM:  # the ranks hear it themselves (sent to this process alone, or to
                job.forward(signum)  # its group while they have groups of their own) and stop "by SIGTERM"
            else:
                job.stop()
        else:
            job.kill()

    old = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    bar = StderrProgress(args.quiet)
    last_loss = None
    try:
        while not job.finished:
            for message in job.poll(timeout=0.2):
                if message["type"] == "metrics":
                    for _, name, value, _ in message["rows"]:
                        if name == Metric.TRAIN_LOSS:
                            last_loss = value
                    bar.training({**job.progress, "eta_s": job.eta_s}, last_loss)  # the job's own ETA
                elif message["type"] == "log" and message.get("level") != STAGE:
                    print(message["text"], file=sys.stderr)
                elif message["type"] == "log" and bar.tty:  # before the first step: on the live line only
                    bar.show(0.0, f"{message['text']}…", None, "stage")
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)
        bar.close()
        if not job.finished:
            job.kill()
    result: TrainReport = {
        "run_id": job.run_id, "status": job.state, "epochs": 0, "steps": 0, "train_loss": None, "val_loss": None,
        "val_acc": None, "test_acc": None, "world_size": job.world_size, "device": cfg.hardware.device,
        "seconds": None, **job.summary, "run_dir": str(job.run_dir)}
    result["status"] = job.state
    if plan is not None and job.state == JobState.FAILED and job.exit_code == 2:
        result["status"] = store.get(job.run_id).status  # a refused resume leaves the run as it was (stopped…)
    if job.state == JobState.FAILED:
        result["error"] = job.failure or (job.errors[0]["message"] if job.errors else "the run failed")
    if not args.json:
        print(_format_summary(result), file=sys.stderr)
    if job.state == JobState.FAILED:
        print(f"studio: error: {result['error']}", file=sys.stderr)
    return result, job.exit_code


def _explain(args: argparse.Namespace) -> int:
    """The recipe of the run these arguments would start (``--resume``: its continuation); nothing is created."""
    from studio.engine.training.recipe import explain, recipe_text

    if args.resume:
        from studio.core.runs.store import RunStore
        from studio.engine.training.resume_plan import plan_resume

        if args.config:
            raise ConfigError("--resume continues a run with its own config; drop --config")
        cfg = plan_resume(RunStore(), args.resume, args.set).config
    else:
        cfg = load_config(args)
    recipe = explain(cfg)
    if args.json:
        emit_json(recipe)
    else:
        print(recipe_text(recipe))
    return 0


def _format_summary(r: TrainReport) -> str:
    def num(key: str) -> str:
        v = r.get(key)
        return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.4f}"

    return (f"{r['status']}: {r['epochs']} epochs, {r['steps']} steps, train loss {num('train_loss')}, "
            f"val acc {num('val_acc')}, test acc {num('test_acc')} ({r['world_size']}× {r['device']}, "
            f"{num('seconds')} s)")


def add_parser(sub: argparse._SubParsersAction) -> None:
    train = sub.add_parser("train", help="train a run headless (progress on stderr)")
    add_config_args(train)
    train.add_argument("--name", help="a name for the run")
    train.add_argument("--resume", metavar="RUN", help="continue a stopped, interrupted or finished run from its "
                       "last checkpoint (same run; --set train.epochs=N extends it)")
    train.add_argument("--seeds", metavar="SEEDS",
                       help="train the run once per seed, one after another, e.g. 0,1,2,3,4 or 0-4: a seed group, "
                            "drawn as its mean and a band; --json prints the group's mean ± std of each final number")
    train.add_argument("--preset", choices=PRESETS,
                       help="suggested: the settings the model suggests for itself where the defaults give an "
                            "untrained result (next-word models: more, smaller steps; the window applies them when "
                            "the model is picked; --explain lists them); lamb_large_batch: You et al. 2020's recipe "
                            "(batch 2048, LAMB, warm-up then polynomial decay); --set still wins")
    train.add_argument("--explain", action="store_true",
                       help="print the run's resolved recipe and exit without training or creating a run: each "
                            "config section's values that are on, the hardware and thread policy, the global batch, "
                            "steps per epoch and in all, and the callbacks in the order they run (--json: as one "
                            "JSON object)")
    add_output_args(train, quiet=True)
    train.set_defaults(func=cmd_train)
