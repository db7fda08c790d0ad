"""``studio eval`` and ``studio predict``: what a saved run gets wrong, and what it says about new inputs.

With ``--json`` the last line on stdout is one JSON object: for eval ``accuracy, per_class, confusion,
confusion_normalised, ece, reliability, mistakes, seconds`` (and ``run_id, split, checkpoint, examples,
classes, path``); for predict ``predictions`` (each ``input, predicted, probability, top``) and ``seconds``.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from studio.cli._shared import StderrProgress, add_output_args, run_dir_of
from studio.cli.landscape import SPLITS
from studio.core.contracts.evaluation import EvaluationResult

COMMANDS = ("eval", "predict")


def _table(summary: EvaluationResult) -> str:
    lines = [f"{'class':<16} {'support':>7} {'precision':>9} {'recall':>7} {'f1':>6}"]
    for c in summary["per_class"]:
        lines.append(f"{c['class'][:16]:<16} {c['support']:>7} {c['precision']:>9.3f} {c['recall']:>7.3f} "
                     f"{c['f1']:>6.3f}")
    return "\n".join(lines)


def cmd_eval(args: argparse.Namespace) -> int:
    from studio.cli._shared import emit_json
    from studio.engine.tasks.evaluation import evaluate_run

    run_dir = run_dir_of(args.run)
    bar = StderrProgress(args.quiet)
    try:
        result = evaluate_run(run_dir, split=args.split, checkpoint=args.checkpoint, device=args.device,
                              mistakes=args.mistakes, bins=args.bins, progress=bar)
    finally:
        bar.close()
    s = result.summary
    if args.json:
        emit_json(s)
    else:
        print(_table(s))
        print(f"{s['run_id']} ({s['checkpoint']}) on {s['split']}: accuracy {s['accuracy']:.4f} of {s['examples']} "
              f"examples, ECE {s['ece']:.4f} ({s['seconds']:.1f} s) → {s['path']}", file=sys.stderr)
    return 0


def cmd_predict(args: argparse.Namespace) -> int:
    from studio.cli._shared import emit_json
    from studio.engine.tasks.predict import predict

    if args.top_k < 1:
        from studio.core.errors import ConfigError

        raise ConfigError("--top-k must be 1 or more")
    out = predict(run_dir_of(args.run), args.paths, top=args.top_k, checkpoint=args.checkpoint, device=args.device)
    if args.json:
        emit_json(out)
    else:
        for p in out["predictions"]:
            tops = ", ".join(f"{t['class']} {t['probability']:.3f}" for t in p["top"])
            print(f"{p['input']}: {tops}")
    return 0


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("run", metavar="RUN_ID_OR_DIR", help="a run id (or unique prefix) or a run directory")
    p.add_argument("--checkpoint", help="final (default), initial, a step number or a .pt file")
    p.add_argument("--device", default="auto", help="auto (a GPU when there is one), cpu or cuda")


def add_parser(sub: Any) -> None:
    ev = sub.add_parser("eval", help="confusion matrix, per-class scores, calibration and worst mistakes of a run")
    _common(ev)
    add_output_args(ev, quiet=True)
    ev.add_argument("--split", choices=SPLITS, default="test", help="the data to evaluate on (default test)")
    ev.add_argument("--mistakes", type=int, default=24, help="how many confident mistakes to keep (default 24)")
    ev.add_argument("--bins", type=int, default=15, help="confidence bins of the reliability diagram (default 15)")
    ev.set_defaults(func=cmd_eval)
    pr = sub.add_parser("predict", help="top-k classes of images, folders of images or CSV rows, by a trained run")
    _common(pr)
    add_output_args(pr)
    pr.add_argument("paths", nargs="+", metavar="PATH", help="an image, a folder of images or a CSV file")
    pr.add_argument("--top-k", type=int, default=3, help="how many classes to show (default 3)")
    pr.set_defaults(func=cmd_predict)
