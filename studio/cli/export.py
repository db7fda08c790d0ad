"""``studio export``: a run's curves (CSV, PNG, or recorded for slides: MP4, GIF, PNG, SVG), its metrics as
TensorBoard event files, and its trained model as a TorchScript or torch.export file with its config, loadable
without Studio.

With ``--json`` the last line on stdout is one JSON object with a key per target asked for (``csv``,
``png``, ``tensorboard``, ``model``, each with its ``path``; ``recorded``: the recording's path) and ``run_id``,
``seconds``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from studio.cli._record import FORMATS, add_record_args
from studio.cli._shared import add_output_args
from studio.core.contracts.export import ExportReport

COMMANDS = ("export",)


def cmd_export(args: argparse.Namespace) -> int:
    from studio.cli._record import check_recording, curves_reel, record_into
    from studio.cli._shared import emit_json
    from studio.core.errors import ConfigError
    from studio.core.runs.store import RunStore

    if not (args.csv or args.png or args.tensorboard or args.model or args.record):
        raise ConfigError("nothing to export: give --csv FILE, --png FILE, --tensorboard DIR, --model FILE and/or "
                          "--record FILE")
    from studio.core.host.outfiles import check_target

    for target in (args.csv, args.png, args.model):
        if target is not None:
            check_target(target)  # a regular file or a new name, in a folder that can be made
    size = check_recording(args.record, args.size)
    started = time.perf_counter()
    store = RunStore(_home_of(args.run))
    run = store.resolve(args.run)
    out: ExportReport = {"run_id": run.id}
    if args.csv:
        from studio.core.runs.export import export_metrics_csv

        out["csv"] = {"path": str(args.csv), "rows": export_metrics_csv(store, [run.id], args.csv)}
    if args.png:
        from studio.gui.plots.curves_png import ensure_app, render_curves_png

        app = ensure_app()  # noqa: F841 - kept alive while drawing
        out["png"] = {"path": str(args.png), "bytes": render_curves_png(store, [run.id], args.png)}
    if args.tensorboard:
        from studio.engine.tasks.export import export_tensorboard

        out["tensorboard"] = export_tensorboard(store, run.id, args.tensorboard)
    if args.model:
        from studio.engine.tasks.export import export_model

        out["model"] = export_model(run.dir, args.model, args.format, args.checkpoint)
    failed = None
    if args.record:  # what was exported is reported all the same
        failed = record_into(out, lambda: curves_reel(store, [run.id], args.style == "projector"), args.record, size)
    out["seconds"] = round(time.perf_counter() - started, 3)
    if args.json:
        emit_json(out)
    else:
        written = (("csv", out.get("csv")), ("png", out.get("png")), ("tensorboard", out.get("tensorboard")),
                   ("model", out.get("model")))
        for key, target in written:
            if target is not None:
                print(f"{key}: {target['path']}", file=sys.stderr)
        if "recorded" in out:
            print(f"recorded: {out['recorded']}", file=sys.stderr)
    if failed is not None:
        raise failed
    return 0


def _home_of(run: str) -> Path | None:
    """The run store holding a run directory (``HOME/runs/RUN_ID``), else None: the default store."""
    from studio.core.contracts import layout

    path = Path(run)
    home = path.resolve().parent.parent
    return home if layout.config_path(path).exists() and layout.database_path(home).exists() else None


def add_parser(sub: Any) -> None:
    ex = sub.add_parser("export", help="export a run's curves (CSV, PNG, TensorBoard, a recording for "
                                       "slides) or its model (TorchScript, torch.export)")
    ex.add_argument("run", metavar="RUN_ID_OR_DIR", help="a run id (or unique prefix) or a run directory")
    ex.add_argument("--csv", type=Path, metavar="FILE",
                    help="the metrics as CSV: run_id, run_name, metric, step, value")
    ex.add_argument("--png", type=Path, metavar="FILE", help="the curves as a PNG image")
    ex.add_argument("--tensorboard", type=Path, metavar="DIR",
                    help="TensorBoard event files under DIR/RUN_ID: the curves and the weight/gradient "
                         "histograms (needs the tensorboard package)")
    ex.add_argument("--model", type=Path, metavar="FILE",
                    help="the trained model with its preprocessing (+ FILE.json: classes, input, config)")
    ex.add_argument("--format", choices=("export", "torchscript"), default="export",
                    help="model file format: torch.export .pt2 (default) or TorchScript .pt")
    ex.add_argument("--checkpoint", help="the model's checkpoint: final (default), initial, a step or a .pt file")
    add_record_args(ex, "the curves recorded for slides: " + FORMATS.format(what="growing step by step")
                    + ", as File › Record the curves… does")
    add_output_args(ex)
    ex.set_defaults(func=cmd_export)
