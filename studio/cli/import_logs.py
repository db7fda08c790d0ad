"""``studio import LOGDIR``: every TensorBoard run under a folder (a ``SummaryWriter`` folder, Lightning's
``lightning_logs/``) as a Studio run: scalars as its curves, histograms for the Histograms view, hparams as its
settings (core/runs/tensorboard_import.py). Importing the same folder again changes nothing.

With ``--json`` the last line on stdout is one JSON object: ``imported`` and ``unchanged`` (run ids), ``foreign``
(files skipped: not TensorBoard logs), ``truncated`` (files read up to their damage), ``seconds``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from studio.cli._shared import add_output_args

COMMANDS = ("import",)


def cmd_import(args: argparse.Namespace) -> int:
    from studio.cli._shared import StderrProgress, emit_json
    from studio.core.runs.store import RunStore
    from studio.core.runs.tensorboard_import import import_logs

    started = time.perf_counter()
    store = RunStore()
    bar = StderrProgress(args.quiet)
    try:
        report = import_logs(args.logdir, store, progress=bar, tags=args.tag or ["tensorboard"])
    finally:
        bar.close()
    if args.json:
        emit_json({"imported": report.imported, "unchanged": report.unchanged,
                   "foreign": [str(p) for p in report.foreign], "truncated": [str(p) for p in report.truncated],
                   "seconds": round(time.perf_counter() - started, 3)})
    else:
        print(report.line(), file=sys.stderr)
        for run_id in report.imported:
            print(run_id)
    return 0


def add_parser(sub: Any) -> None:
    p = sub.add_parser("import", help="import TensorBoard logs (a SummaryWriter folder, lightning_logs/) as runs")
    p.add_argument("logdir", type=Path, metavar="LOGDIR", help="a folder of TensorBoard event files, searched below")
    p.add_argument("--tag", action="append", metavar="TAG",
                   help="tag the imported runs with this word (repeatable; default: tensorboard)")
    add_output_args(p, quiet=True, what="the runs imported and the files skipped")
    p.set_defaults(func=cmd_import)
