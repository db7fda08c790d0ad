"""``studio parallel``: one model four ways — the same MLP and global batch trained single-process, data-parallel
(DDP), model-parallel (contiguous stages, send/recv) and pipeline-parallel (GPipe and 1F1B with M micro-batches),
on ``--ranks`` processes (``engine/parallel``).

Without ``--json``: a table (mode, M, samples/s, × the single process, the measured bubble beside the theory
(p−1)/(m+p−1), the largest loss gap to the single process's curve, memory per rank). With ``--json`` the last line
on stdout is one JSON object (``core/contracts/parallel.ParallelResult``): ``rows`` (each ``mode``,
``microbatches``, ``samples_per_s``, ``step_ms``, ``losses``, ``max_loss_gap``, ``timeline``, ``busy``, ``bubble``,
``bubble_theory``, ``memory``), ``stages``, ``loss_tolerance``, ``equal_curves``, ``notes``, …
"""

from __future__ import annotations

import argparse
from typing import Any

from studio.cli._shared import add_output_args, run_and_print
from studio.core.contracts.parallel import MODES, ParallelRequest, ParallelResult
from studio.core.errors import ConfigError
from studio.core.numbers.ints import split_ints

COMMANDS = ("parallel",)


def _ints(text: str, flag: str, example: str) -> tuple[int, ...]:
    try:
        values = tuple(split_ints(text))
    except ValueError:
        raise ConfigError(f"{flag} takes whole numbers separated by commas, e.g. {example} (not {text!r})") from None
    if not values:
        raise ConfigError(f"{flag} needs at least one number, e.g. {example}")
    return values


def request_from(args: argparse.Namespace) -> ParallelRequest:
    """The request the flags describe (checked in full by the engine before any process starts)."""
    modes = tuple(m.strip() for m in args.modes.split(",") if m.strip())
    defaults = ParallelRequest()
    return ParallelRequest(
        modes=modes, ranks=args.ranks,
        microbatches=_ints(args.microbatches, "--microbatches", "1,2,4,8") if args.microbatches
        else defaults.microbatches,
        dataset=args.dataset, widths=_ints(args.widths, "--widths", "512,512,512") if args.widths
        else defaults.widths,
        batch_size=args.batch_size, steps=args.steps,
        warmup_steps=args.warmup_steps if args.warmup_steps is not None else min(defaults.warmup_steps,
                                                                                 max(0, args.steps - 1)),
        timeline_steps=args.timeline_steps if args.timeline_steps is not None
        else max(1, min(defaults.timeline_steps, args.steps - defaults.warmup_steps)),
        lr=args.lr, seed=args.seed, device=args.device)


def _mib(n: int) -> str:
    return f"{n / 2**20:.1f}"


def format_table(out: ParallelResult) -> str:
    rows = out["rows"]
    single = next((r for r in rows if r["mode"] == "single"), None)
    base = single["samples_per_s"] if single else None
    lines = [f"{'mode':<15} {'M':>3} {'samples/s':>10} {'×single':>8} {'bubble':>7} {'theory':>7} {'loss gap':>9}  "
             "memory per rank (MiB: parameters+gradients / activations)"]
    for r in rows:
        ratio = f"{r['samples_per_s'] / base:.2f}×" if base else "—"
        bubble = f"{r['bubble']:.0%}" if r["bubble"] is not None else "—"
        theory = f"{r['bubble_theory']:.0%}" if r["bubble_theory"] is not None else "—"
        memory = ", ".join(f"r{m['rank']} {_mib(m['parameters'] + m['gradients'])}/{_mib(m['activations'])}"
                           for m in r["memory"])
        m = str(r["microbatches"]) if r["mode"].startswith("pipeline") else "—"
        lines.append(f"{r['mode']:<15} {m:>3} {r['samples_per_s']:>10,.0f} {ratio:>8} {bubble:>7} {theory:>7} "
                     f"{r['max_loss_gap']:>9.1e}  {memory}")
    verdict = "the same curve" if out.get("equal_curves") else "NOT the same curve"
    lines.append(f"stages: {' | '.join(' '.join(s) for s in out['stages'])}; every mode follows the single process's "
                 f"loss within {out['loss_tolerance']:g}: {verdict}")
    lines += [f"note: {n}" for n in out.get("notes", [])]
    return "\n".join(lines)


def cmd_parallel(args: argparse.Namespace) -> int:
    from studio.engine.parallel.launch import run_parallel

    request = request_from(args)
    return run_and_print(args, lambda bar: run_parallel(request, progress=bar), format_table)


def add_parser(sub: Any) -> None:
    d = ParallelRequest()
    p = sub.add_parser("parallel", help="one model four ways: single, DDP, model- and pipeline-parallel side by side")
    p.add_argument("--modes", default=",".join(d.modes), help=f"modes to run, of {', '.join(MODES)} (default: all)")
    p.add_argument("--ranks", type=int, default=d.ranks, help=f"processes (one device each) (default {d.ranks})")
    p.add_argument("--microbatches", default="", help="micro-batch counts for the pipeline modes, e.g. 1,2,4,8 "
                                                       f"(default {','.join(map(str, d.microbatches))})")
    p.add_argument("--steps", type=int, default=d.steps, help=f"training steps per mode (default {d.steps})")
    p.add_argument("--warmup-steps", type=int, default=None, help=f"untimed first steps (default {d.warmup_steps})")
    p.add_argument("--timeline-steps", type=int, default=None,
                   help=f"timed steps kept on the timeline (default {d.timeline_steps})")
    p.add_argument("--batch-size", type=int, default=d.batch_size, help=f"the global batch (default {d.batch_size})")
    p.add_argument("--widths", default="", help="the MLP's hidden layers, e.g. 512,512,512 (default "
                                                f"{','.join(map(str, d.widths))})")
    p.add_argument("--dataset", default=d.dataset, help=f"an image dataset (default {d.dataset})")
    p.add_argument("--lr", type=float, default=d.lr, help=f"SGD's learning rate (default {d.lr})")
    p.add_argument("--seed", type=int, default=d.seed, help="the seed of the weights and the batches (default 0)")
    p.add_argument("--device", default=d.device, choices=("cpu", "cuda"),
                   help="cpu (gloo) or cuda (one GPU per rank, NCCL) (default cpu)")
    add_output_args(p, quiet=True)
    p.set_defaults(func=cmd_parallel)
