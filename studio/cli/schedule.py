"""``studio schedule``: the run store's finished runs replayed on N simulated GPUs under FIFO, shortest-job-first,
shortest-remaining-time-first and least-attained-service (Tiresias-style) — job completion times and makespan per
policy (``core/scheduling``).

With ``--json`` the last line on stdout is one JSON object (``core/contracts/schedule.ScheduleResult``):
``gpus``, ``arrivals``, ``repeat``, ``quantum``, ``thresholds``, ``skipped``, ``jobs`` (id, name, arrival,
duration, gpus) and ``policies`` (each ``policy``, ``label``, ``mean_jct``, ``median_jct``, ``p95_jct``,
``makespan``, ``utilisation``, ``preemptions`` and ``jobs``: id, start, finish, jct, ``intervals`` as
``[start, end, [GPUs]]``).
"""

from __future__ import annotations

import argparse
from typing import Any

from studio.cli._shared import add_output_args, emit_json
from studio.core.contracts.schedule import ScheduleRequest, ScheduleResult

COMMANDS = ("schedule",)


def _seconds(value: float) -> str:
    if value >= 3600:
        return f"{value / 3600:.2f} h"
    if value >= 60:
        return f"{value / 60:.1f} min"
    return f"{value:.1f} s"


def format_table(out: ScheduleResult) -> str:
    lines = [f"{len(out['jobs'])} jobs on {out['gpus']} GPUs, arrivals {out['arrivals']}"
             + (f", {out['skipped']} finished runs without a measured duration left out" if out["skipped"] else ""),
             f"{'policy':<15} {'mean JCT':>10} {'median':>10} {'p95':>10} {'makespan':>10} {'util.':>6} "
             f"{'preempt.':>8}"]
    for r in out["policies"]:
        lines.append(f"{r['label']:<15} {_seconds(r['mean_jct']):>10} {_seconds(r['median_jct']):>10} "
                     f"{_seconds(r['p95_jct']):>10} {_seconds(r['makespan']):>10} {r['utilisation']:>6.0%} "
                     f"{r['preemptions']:>8}")
    return "\n".join(lines)


def _floats(text: str, what: str) -> tuple[float, ...]:
    from studio.core.errors import ConfigError

    try:
        return tuple(float(w) for w in text.split(",") if w.strip())
    except ValueError:
        raise ConfigError(f"{what} takes numbers separated by commas, not {text!r}") from None


def cmd_schedule(args: argparse.Namespace) -> int:
    from studio.core.scheduling.study import run_study

    request = ScheduleRequest(gpus=args.gpus, policies=tuple(args.policies.split(",")), filter=args.filter,
                              arrivals=args.arrivals, repeat=args.repeat, queued_only=args.queued_only,
                              quantum=args.quantum, thresholds=_floats(args.las_thresholds, "--las-thresholds"))
    out = run_study(request)  # a ConfigError: one line and exit 2 from cli.main, as every command
    if args.json:
        emit_json(out)
    else:
        print(format_table(out))
    return 0


def add_parser(sub: Any) -> None:
    from studio.cli.runs import FILTER_HELP

    p = sub.add_parser("schedule", help="replay finished runs on N simulated GPUs under FIFO, SJF, SRTF and LAS: "
                                        "job completion times and makespan per policy",
                       description="Replay the run store's finished runs (duration = measured wall time, GPUs = "
                                   "processes) on a simulated GPU cluster under each scheduling policy. Example: "
                                   "studio schedule --gpus 4 --policies fifo,sjf,las --arrivals together")
    p.add_argument("--gpus", type=int, default=4, help="GPUs in the simulated cluster (default 4)")
    p.add_argument("--policies", default="fifo,sjf,las",
                   help="comma-separated, of fifo, sjf (shortest job first), srtf (shortest remaining time, "
                        "preemptive), las (least attained service, Tiresias); default fifo,sjf,las")
    p.add_argument("--filter", metavar="EXPR", default="", help="which finished runs: " + FILTER_HELP)
    p.add_argument("--arrivals", choices=("recorded", "together"), default="recorded",
                   help="recorded: each run arrives when it was queued (or created); together: all at time 0")
    p.add_argument("--queued-only", action="store_true",
                   help="only the runs that went through the run queue (default: every finished run)")
    p.add_argument("--repeat", type=int, default=1, metavar="K", help="the trace K times over (a bigger trace)")
    p.add_argument("--quantum", type=float, default=None, metavar="S",
                   help="LAS re-decides every S seconds (default: a tenth of the mean run duration)")
    p.add_argument("--las-thresholds", default="", metavar="GPU_S,...",
                   help="discretized LAS (Tiresias): queue bounds in GPU-seconds, e.g. 600,3600; default: "
                        "continuous LAS")
    add_output_args(p, what="every policy's statistics and every job's intervals")
    p.set_defaults(func=cmd_schedule)
