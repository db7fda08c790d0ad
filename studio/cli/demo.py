"""``studio demo NAME [--set key=value ...] [--json]``: run a teaching demo's computation headless.

Progress goes to stderr. With ``--json`` the last stdout line is one JSON object: ``demo``, ``seconds`` and
the demo's key numbers (e.g. the race: per optimizer, steps to reach the tolerance or "diverged"; the
large-batch lab: per batch size, steps to target, top eigenvalue, gap). ``studio list demos`` lists them.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from studio.cli._shared import add_output_args

COMMANDS = ("demo",)


def parse_sets(items: list[str]) -> dict[str, str]:
    """["lr=0.1", "demo.steps=50"] → {"lr": "0.1", "steps": "50"} (a leading "demo." is allowed)."""
    from studio.core.errors import ConfigError

    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip().removeprefix("demo.")
        if not sep or not key:
            raise ConfigError(f"--set takes key=value, e.g. --set lr=0.1; got {item!r}")
        out[key] = value.strip()
    return out


def format_summary(value: Any, indent: int = 0) -> str:
    """The summary as indented "key: value" lines, numbers to 4 significant digits."""
    pad = "  " * indent
    if isinstance(value, dict):
        lines = []
        for k, v in value.items():
            if isinstance(v, dict):
                lines.append(f"{pad}{k}:")
                lines.append(format_summary(v, indent + 1))
            else:
                lines.append(f"{pad}{k}: {format_summary(v)}")
        return "\n".join(lines)
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def cmd_demo(args: argparse.Namespace) -> int:
    from studio.cli._shared import StderrProgress, emit_json
    from studio.core.demos.catalog import DEMOS

    entry = DEMOS.get(args.name)
    params = DEMOS.resolve(args.name, parse_sets(args.set), "demo")
    bar = StderrProgress(args.quiet)
    started = time.perf_counter()
    try:
        result = entry.load_builder()(**params, progress=bar)
    finally:
        bar.close()
    out = {"demo": args.name, **result["summary"], "seconds": round(time.perf_counter() - started, 3)}
    if args.json:
        emit_json(out)
    else:
        print(f"{args.name}: {entry.description}", file=sys.stderr)
        print(format_summary(out))
    return 0


def add_parser(sub: Any) -> None:
    demo = sub.add_parser("demo", help="run a teaching demo headless (studio list demos)")
    demo.add_argument("name", metavar="NAME", help="the demo, e.g. optimizer_race (studio list demos)")
    demo.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                      help="set one of the demo's parameters, e.g. --set function=rosenbrock (repeatable)")
    add_output_args(demo, quiet=True, what="the key numbers")
    demo.set_defaults(func=cmd_demo)
