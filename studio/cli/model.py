"""``studio model summary``: layers, output shapes, parameters and FLOPs of the configured model."""

from __future__ import annotations

import argparse

from studio.cli._shared import add_config_args, add_output_args

COMMANDS = ("model",)


def add_parser(sub: argparse._SubParsersAction) -> None:
    model = sub.add_parser("model", help="inspect the configured model")
    actions = model.add_subparsers(dest="model_command", required=True)
    summary = actions.add_parser("summary", help="layers, output shapes, parameter counts, FLOPs per sample")
    add_config_args(summary, example="model.name=lenet5")
    summary.add_argument("--memory", action="store_true",
                         help="also where a training step's memory goes: parameters, gradients, optimizer state and "
                              "one micro-batch's activations, computed and measured on one real step")
    add_output_args(summary, what="the summary")
    summary.set_defaults(func=cmd_model_summary)


def cmd_model_summary(args: argparse.Namespace) -> int:
    from studio.cli._shared import emit_json, load_config
    from studio.core.estimates.memory import format_memory
    from studio.core.estimates.model_summary import format_summary, summarize_config

    summary = summarize_config(load_config(args), memory=args.memory)
    if args.json:
        emit_json(summary)
    else:
        print(f"model {summary['model']} on dataset {summary['dataset']}")
        print(format_summary(summary))
        if "memory" in summary:
            print(format_memory(summary["memory"]))
    return 0
