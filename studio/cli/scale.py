"""``studio scale``: the same training at 1, 2, … processes — throughput, efficiency against linear scaling,
time per step split into compute and all-reduce, and steps to a target accuracy (``engine/tasks/dp_scaling.py``).

With ``--json`` the last line on stdout is one JSON object: ``rows`` (each ``mode`` ddp|dp, ``processes``,
``samples_per_s``, ``speedup``, ``efficiency``, ``step_ms``, ``compute_ms``, ``allreduce_ms``, ``optimizer_ms``,
``steps_to_target``, ``val_acc``, ``threads``, …), ``device``, ``cores``, ``cuda_devices``, ``model``,
``global_batch``, ``steps``, ``target``.
"""

from __future__ import annotations

import argparse
from typing import Any

from studio.cli._shared import add_config_args, add_output_args, run_and_print
from studio.core.contracts.scaling import ScaleResult

COMMANDS = ("scale",)


def format_table(out: ScaleResult) -> str:
    lines = [f"{'mode':<5} {'procs':>5} {'samples/s':>10} {'speedup':>8} {'effic.':>7} {'step ms':>8} "
             f"{'compute':>8} {'allred.':>8} {'to target':>9}"]
    for r in out["rows"]:
        reach = str(r["steps_to_target"]) if r["steps_to_target"] else "—"
        lines.append(f"{r['mode']:<5} {r['processes']:>5} {r['samples_per_s']:>10,.0f} {r['speedup']:>7.2f}× "
                     f"{r['efficiency']:>6.0%} {r['step_ms']:>8.2f} {r['compute_ms']:>8.2f} {r['allreduce_ms']:>8.2f} "
                     f"{reach:>9}")
    return "\n".join(lines)


def cmd_scale(args: argparse.Namespace) -> int:
    from studio.cli._shared import load_config
    from studio.engine.tasks.dp_scaling import parse_processes, scaling_study

    processes = parse_processes(args.processes)
    cfg = load_config(args)
    return run_and_print(args, lambda bar: scaling_study(
        cfg, processes, steps=args.steps, target=args.target, threads=args.threads, eval_every=args.eval_every,
        data_parallel=not args.no_dp, progress=bar), format_table)


def add_parser(sub: Any) -> None:
    p = sub.add_parser("scale", help="measure data-parallel scaling: throughput, efficiency, compute vs all-reduce")
    p.add_argument("--processes", default="1,2", help="process counts to compare, e.g. 1,2 (default)")
    add_config_args(p, example="train.batch_size=256")
    p.add_argument("--steps", type=int, default=60, help="training steps per configuration (default 60)")
    p.add_argument("--target", type=float, default=0.75, help="validation accuracy to reach (default 0.75)")
    p.add_argument("--eval-every", type=int, default=10, help="steps between accuracy checks (default 10)")
    p.add_argument("--threads", type=int, default=0, help="CPU threads per process (default: cores ÷ processes)")
    p.add_argument("--no-dp", action="store_true", help="with CUDA: skip the single-process DataParallel rows")
    add_output_args(p, quiet=True)
    p.set_defaults(func=cmd_scale)
