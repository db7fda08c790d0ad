"""``studio model summary``: layers, output shapes, parameters and FLOPs of the configured model."""

from __future__ import annotations

import argparse

COMMANDS = ("model",)


def add_parser(sub: argparse._SubParsersAction) -> None:
    model = sub.add_parser("model", help="inspect the configured model")
    actions = model.add_subparsers(dest="model_command", required=True)
    summary = actions.add_parser("summary", help="layers, output shapes, parameter counts, FLOPs per sample")
    summary.add_argument("--config", help="a run config TOML file (default: the built-in default)")
    summary.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE",
                         help="override one setting, e.g. --set model.name=lenet5 (repeatable)")
    summary.add_argument("--json", action="store_true", help="print the summary as one JSON line on stdout")
    summary.set_defaults(func=cmd_model_summary)


def cmd_model_summary(args: argparse.Namespace) -> int:
    from studio.cli._shared import emit_json
    from studio.core.config import RunConfig
    from studio.core.models.summary import format_summary, summarize_config

    cfg = RunConfig.load(args.config) if args.config else RunConfig()
    summary = summarize_config(cfg.with_overrides(args.set))
    if args.json:
        emit_json(summary)
    else:
        print(f"model {summary['model']} on dataset {summary['dataset']}")
        print(format_summary(summary))
    return 0
