"""Headless commands: ``studio train|runs|list``. Exit codes: 0 finished or stopped by the user,
2 a user-fixable error (one line on stderr, no traceback), 3 a run that failed."""

from __future__ import annotations

import argparse
import math
import signal
import sys
import time
from types import ModuleType
from typing import Any

from studio import version_line
from studio.cli import cluster, compare, compress, data, demo, export, fit, generate, landscape, model, queue, scale
from studio.cli import eval as eval_cmd
from studio.cli._shared import emit_json
from studio.core.errors import ConfigError, StudioError
from studio.core.vocab import JobState, Metric


class Progress:
    """A one-line progress bar on stderr (a line per epoch when stderr is not a terminal)."""

    def __init__(self, quiet: bool = False) -> None:
        self.tty = sys.stderr.isatty()
        self.quiet = quiet
        self.last_epoch = -1
        self.t0: float | None = None  # from the first report: process start-up is not training
        self.step0 = 0

    def update(self, progress: dict[str, Any], loss: float | None) -> None:
        if self.quiet:
            return
        step, total = progress.get("step", 0), progress.get("total_steps") or 0
        epoch, epochs = progress.get("epoch", 0), progress.get("epochs", 0)
        frac = step / total if total else 0.0
        if self.t0 is None:
            self.t0, self.step0 = time.monotonic(), step
        rate = (step - self.step0) / max(time.monotonic() - self.t0, 1e-9)
        eta = (total - step) / rate if rate > 0 else float("nan")
        loss_txt = f" loss {loss:.4f}" if loss is not None else ""
        eta_txt = f"{eta:.0f}s" if math.isfinite(eta) else "…"
        line = f"epoch {epoch}/{epochs} step {step}/{total}{loss_txt} ETA {eta_txt}"
        if self.tty:
            bar = "#" * int(frac * 30)
            sys.stderr.write(f"\r[{bar:<30}] {line}   ")
            sys.stderr.flush()
        elif epoch != self.last_epoch:
            print(line, file=sys.stderr, flush=True)
        self.last_epoch = epoch

    def close(self) -> None:
        if self.tty and not self.quiet:
            sys.stderr.write("\n")


def cmd_train(args: argparse.Namespace) -> int:
    from studio.core.config import RunConfig
    from studio.core.runs.store import RunStore
    from studio.engine.training.launcher import launch

    store = RunStore()
    plan = None
    if args.resume:
        from studio.engine.training.resume_plan import plan_resume

        if args.config:
            raise ConfigError("--resume continues a run with its own config; drop --config")
        plan = plan_resume(store, args.resume, args.set)
        cfg = plan.config
    else:
        cfg = RunConfig.load(args.config) if args.config else RunConfig()
        cfg = cfg.with_overrides(args.set)
    job = launch(cfg, store, name=args.name or "", resume=plan)
    print(f"run {job.run_id}: {job.run_dir}", file=sys.stderr)
    interrupts = []

    def on_signal(signum: int, _frame: Any) -> None:
        interrupts.append(signum)
        if len(interrupts) == 1:
            print("\nstopping (saving a checkpoint)…", file=sys.stderr)
            job.stop()
        else:
            job.kill()

    old = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    bar = Progress(quiet=args.quiet)
    last_loss = None
    try:
        while not job.finished:
            for message in job.poll(timeout=0.2):
                if message["type"] == "metrics":
                    for _, name, value, _ in message["rows"]:
                        if name == Metric.TRAIN_LOSS:
                            last_loss = value
                    bar.update(job.progress, last_loss)
                elif message["type"] == "log":
                    print(message["text"], file=sys.stderr)
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)
        bar.close()
        if not job.finished:
            job.kill()
    result = {"run_id": job.run_id, "status": job.state, "epochs": 0, "steps": 0, "train_loss": None,
              "val_loss": None, "val_acc": None, "test_acc": None, "world_size": job.world_size,
              "device": cfg.hardware.device, "seconds": None, **job.summary, "run_dir": str(job.run_dir)}
    result["status"] = job.state
    if job.state == JobState.FAILED:
        result["error"] = job.failure or (job.errors[0]["message"] if job.errors else "the run failed")
    if args.json:
        emit_json(result)
    else:
        print(_format_summary(result), file=sys.stderr)
    if job.state == JobState.FAILED:
        print(f"studio: error: {result['error']}", file=sys.stderr)
    return job.exit_code


def _format_summary(r: dict[str, Any]) -> str:
    def num(key: str) -> str:
        v = r.get(key)
        return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.4f}"

    return (f"{r['status']}: {r['epochs']} epochs, {r['steps']} steps, train loss {num('train_loss')}, "
            f"val acc {num('val_acc')}, test acc {num('test_acc')} ({r['world_size']}× {r['device']}, "
            f"{num('seconds')} s)")


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


def registries() -> dict[str, Any]:
    from studio.core.datasets import DATASETS
    from studio.core.demos import DEMOS
    from studio.core.models import MODELS
    from studio.core.optim import OPTIMIZERS, SCHEDULES

    return {"datasets": DATASETS, "models": MODELS, "optimizers": OPTIMIZERS, "schedules": SCHEDULES,
            "demos": DEMOS}


def cmd_list(args: argparse.Namespace) -> int:
    reg = registries()[args.what]
    if args.json:
        emit_json({args.what: reg.describe()})
        return 0
    for entry in reg:
        params = ", ".join(f"{p.name}={p.default}" for p in entry.params)
        print(f"{entry.name:<22} {entry.description}" + (f"  [{params}]" if params else ""))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="studio", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Studio: train and see neural networks.\n\n"
                    "  studio              open the window (the GUI)\n"
                    "  studio PATH ...     open the window with these files or folders (a config .toml, a run's\n"
                    "                      folder, a run store, or a dataset folder or archive to import)\n"
                    "  studio COMMAND ...  run a command headless, without a window (below)",
        epilog="`studio COMMAND --help` describes one command. Exit codes: 0 done, 2 a problem you can fix "
               "(one line on stderr), 3 a run that failed.")
    parser.add_argument("-V", "--version", action="version", version=version_line(),
                        help="print Studio's version (and torch's) and exit")
    sub = parser.add_subparsers(dest="command", required=True)
    train = sub.add_parser("train", help="train a run headless (progress on stderr)")
    train.add_argument("--config", help="a run config TOML file (default: the built-in default)")
    train.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE",
                       help="override one setting, e.g. --set optimizer.lr=0.01 (repeatable)")
    train.add_argument("--name", help="a name for the run")
    train.add_argument("--resume", metavar="RUN", help="continue a stopped, interrupted or finished run from its "
                       "last checkpoint (same run; --set train.epochs=N extends it)")
    train.add_argument("--json", action="store_true", help="print the result as one JSON line on stdout")
    train.add_argument("--quiet", action="store_true", help="no progress on stderr")
    train.set_defaults(func=cmd_train)
    runs = sub.add_parser("runs", help="list the runs in the run store")
    runs.add_argument("--json", action="store_true")
    runs.set_defaults(func=cmd_runs)
    lst = sub.add_parser("list", help="list a registry")
    lst.add_argument("what", choices=tuple(registries()))
    lst.add_argument("--json", action="store_true")
    lst.set_defaults(func=cmd_list)
    for module in EXTENSIONS:
        module.add_parser(sub)
    return parser


# Further commands live in their own modules, each with ``add_parser(subparsers)`` that registers
# its sub-command (``set_defaults(func=...)``) and a module-level ``COMMANDS`` tuple of its names. They import
# nothing from this module (what they share is in cli/_shared.py): the import graph has no cycle.
EXTENSIONS: tuple[ModuleType, ...] = (model, landscape, data, demo, queue, compare, eval_cmd,
                                      export, compress, fit, scale, cluster, generate)

COMMANDS = ("train", "runs", "list") + tuple(name for module in EXTENSIONS for name in module.COMMANDS)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except StudioError as err:
        print(f"studio: error: {err}", file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt:
        return 0
    except BrokenPipeError:  # `studio list models | head`: the reader left; not an error
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
