"""``studio list WHAT``: a registry's entries (datasets, models, optimizers, schedules, demos) with their
parameters and defaults (``--json``: ``{WHAT: [...]}``); ``studio list checks``: the paper checks and their claims."""

from __future__ import annotations

import argparse
from typing import Any

from studio.cli._shared import add_output_args, emit_json

COMMANDS = ("list",)


def registries() -> dict[str, Any]:
    """What ``studio list`` can list, by name: each a registry (``core/contracts/registry.py``)."""
    from studio.core.datasets import DATASETS
    from studio.core.demos import DEMOS
    from studio.core.models import MODELS
    from studio.core.optim import OPTIMIZERS, SCHEDULES

    return {"datasets": DATASETS, "models": MODELS, "optimizers": OPTIMIZERS, "schedules": SCHEDULES,
            "demos": DEMOS}


def list_checks(as_json: bool) -> int:
    """The paper checks (``core/checks``), as ``studio check --list`` lists them."""
    from studio.cli.check import print_list
    from studio.core.checks.catalog import CHECKS

    print_list(list(CHECKS), as_json)
    return 0


def list_timm(pattern: str, as_json: bool) -> int:
    """timm's architectures matching ``pattern`` (``studio list models --timm '*resnet*'``): names for
    ``[model] name = "timm"``, ``arch = …``."""
    from studio.core.models.library_models import timm_names

    names = timm_names(pattern)
    if as_json:
        emit_json({"timm": names})
        return 0
    print("\n".join(names) if names else f"no timm model matches {pattern!r}")
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    if args.what == "checks":
        return list_checks(args.json)
    if args.timm is not None:
        if args.what != "models":
            from studio.core.errors import ConfigError

            raise ConfigError("--timm lists models: studio list models --timm '*resnet*'")
        return list_timm(args.timm, args.json)
    reg = registries()[args.what]
    if args.json:
        emit_json({args.what: reg.describe()})
        return 0
    for entry in reg:
        params = ", ".join(f"{p.name}={p.default}" for p in entry.params)
        print(f"{entry.name:<22} {entry.description}" + (f"  [{params}]" if params else ""))
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    lst = sub.add_parser("list", help="list a registry")
    lst.add_argument("what", choices=(*registries(), "checks"))
    lst.add_argument("--timm", metavar="PATTERN", default=None,
                     help="with models: timm's architectures matching a shell pattern, e.g. '*resnet*' (needs "
                          "pip install 'studio[timm]')")
    add_output_args(lst, what="the registry's entries")
    lst.set_defaults(func=cmd_list)
