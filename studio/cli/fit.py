"""``studio fit``: a scaling-law fit L(x) = a·x^(−b) + c of runs' loss against steps, samples, parameters or
non-embedding parameters (Kaplan et al.'s N).

With ``--json`` the last line on stdout is one JSON object: ``against, metric, a, b, c, r2, predicted``
(``{x, factor, loss, low, high}``: the loss at ``--extrapolate`` × the largest x with its 95 % band) and
``fits`` (one per run against steps/samples, one over all runs against params, each with its data points
and the fitted curve with its band).
"""

from __future__ import annotations

import argparse
from typing import Any

from studio.cli._shared import add_output_args
from studio.core.vocab import Metric

COMMANDS = ("fit",)


def cmd_fit(args: argparse.Namespace) -> int:
    from studio.cli._shared import emit_json
    from studio.engine.tasks.fit_runs import fit_runs

    out = fit_runs(args.runs, args.against, args.metric, args.extrapolate)
    if args.json:
        emit_json({**out, "fits": [{k: v for k, v in f.items() if args.curves or k not in ("curve",)}
                                   for f in out["fits"]]})
        return 0
    for f in out["fits"]:
        p = f["predicted"]
        print(f"{', '.join(f['runs'])}: L = {f['a']:.4g}·x^-{f['b']:.4f} + {f['c']:.4f}  "
              f"(b ± {f['stderr']['b']:.3g}, r² {f['r2']:.4f}, {f['points']} points); at {p['factor']:g}× "
              f"{args.against} ({p['x']:,.0f}): {out['metric']} {p['loss']:.4f} [{p['low']:.4f}, {p['high']:.4f}]")
    return 0


def add_parser(sub: Any) -> None:
    from studio.core.maths.scaling_fit import AGAINST

    p = sub.add_parser("fit", help="fit a power law L(x) = a·x^-b + c to runs' loss and extrapolate it")
    p.add_argument("runs", nargs="+", metavar="RUN", help="run ids (or unique prefixes) or run directories")
    p.add_argument("--against", choices=AGAINST, default="steps",
                   help="steps or samples seen (one fit per run), or params (one fit over runs of different sizes)")
    p.add_argument("--metric", default=Metric.VAL_LOSS.value,
                   help="the loss to fit (default val/loss; e.g. train/loss)")
    p.add_argument("--extrapolate", type=float, default=4.0, metavar="N",
                   help="predict the loss at N × the largest x (default 4)")
    p.add_argument("--curves", action="store_true", help="with --json: include the fitted curves and bands")
    add_output_args(p)
    p.set_defaults(func=cmd_fit)
