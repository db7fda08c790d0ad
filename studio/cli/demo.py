"""``studio demo NAME [--set key=value ...] [--json] [--record FILE]``: run a teaching demo's computation headless.

Progress goes to stderr. With ``--json`` the last stdout line is one JSON object: ``demo``, ``seconds`` and
the demo's key numbers (e.g. the race: per optimizer, steps to reach the tolerance or "diverged"; the
large-batch lab: per batch size, steps to target, top eigenvalue, gap). ``studio list demos`` lists them.

``--record FILE`` also saves what was computed: ``.mp4`` or ``.gif`` (its frames, drawn by the demo's own view off
screen, ``gui/demos/demo_reel.py``), ``.png`` or ``.svg`` (the last frame), at ``--size``; ``.npz`` (a recording
the Teaching lab can show, ``core/demos/recording_file``). ``--recorded`` records the shipped recording instead of
computing. ``studio demo --record-all DIR`` makes every recording Studio ships (each demo and Parallelism-lab page
at its default settings, ``core/demos/recorder``): the one command that regenerates ``resources/demos``.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from studio.cli._record import FORMATS, add_record_args
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
    from studio.cli._record import record_into
    from studio.cli._shared import StderrProgress, emit_json
    from studio.core.demos.catalog import DEMOS
    from studio.core.errors import ConfigError

    if args.record_all:
        return record_all(args)
    if not args.name:
        raise ConfigError("name a demo (studio list demos), or record them all with --record-all DIR")
    entry = DEMOS.get(args.name)
    params = DEMOS.resolve(args.name, parse_sets(args.set), "demo")
    size = check_record(args)  # a bad file name, size or missing encoder: refused before any computing
    started = time.perf_counter()
    if args.recorded:
        result, params = shipped_result(args)
    else:
        bar = StderrProgress(args.quiet)
        try:
            result = entry.load_builder()(**params, progress=bar)
        finally:
            bar.close()
    out = {"demo": args.name, **result["summary"], "seconds": round(time.perf_counter() - started, 3)}
    failed = None
    if args.record and args.record.lower().endswith(".npz"):
        out["recorded"] = save_record(args.name, params, result, args.record, out["seconds"])
    elif args.record:  # the key numbers are printed all the same: the computation is not lost
        failed = record_into(out, lambda: demo_reel(args.name, params, result, args.style == "projector"),
                             args.record, size)
    if args.json:
        emit_json(out)
    else:
        print(f"{args.name}: {entry.description}", file=sys.stderr)
        print(format_summary(out))
    if failed is not None:
        raise failed
    return 0


def check_record(args: argparse.Namespace) -> tuple[int, int]:
    """The recording's size; ConfigError in one sentence for a target ``--record`` cannot write."""
    from studio.cli._record import check_recording
    from studio.core.errors import ConfigError

    if args.recorded and not args.record:
        raise ConfigError("--recorded goes with --record FILE")
    if args.record and args.record.lower().endswith(".npz"):
        return (0, 0)
    return check_recording(args.record, args.size)


def shipped_result(args: argparse.Namespace) -> tuple[dict[str, Any], dict[str, Any]]:
    """``--recorded``: the recording Studio ships for the demo, and its settings."""
    from studio.core.demos import recordings
    from studio.core.errors import ConfigError

    if args.set:
        raise ConfigError("--recorded shows the shipped recording, made at the default settings; leave out --set")
    recording = recordings.shipped(args.name)
    if recording is None:
        raise ConfigError(f"{args.name} ships no recording; leave out --recorded to compute it")
    return recording.result, recording.params


def demo_reel(name: str, params: dict[str, Any], result: dict[str, Any], projector: bool) -> Any:
    """The demo's frames, drawn by its own view off screen (``gui/demos/demo_reel.py``)."""
    from studio.gui.demos.demo_reel import DemoReel
    from studio.gui.demos.lab import TITLES, VIEWS

    return DemoReel(VIEWS[name], params, result, projector, TITLES.get(name, ""))


def save_record(name: str, params: dict[str, Any], result: dict[str, Any], path: str, seconds: float) -> str:
    """Save the computed ``result`` to ``path`` as a recording (``.npz``); the path written."""
    import datetime

    from studio import __version__
    from studio.core.demos.recording_file import Recording, save
    from studio.core.errors import ConfigError

    if not path.lower().endswith(".npz"):
        raise ConfigError(f"--record writes a recording (.npz); got {path!r}")
    meta = {"recorded": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"), "studio": __version__,
            "seconds": seconds}
    return str(save(Recording(name, params, result, [], meta), path))


def record_all(args: argparse.Namespace) -> int:
    """``--record-all DIR``: every shipped recording (or those named with ``--only``), one line each on stderr."""
    from studio.cli._shared import StderrProgress, emit_json
    from studio.core.demos import recorder, recordings
    from studio.core.errors import ConfigError

    chosen = [n.strip() for n in args.only.split(",") if n.strip()] if args.only else recordings.names()
    unknown = [n for n in chosen if n not in recordings.names()]
    if unknown:
        raise ConfigError(f"--only names recordings; {unknown[0]!r} is not one of {', '.join(recordings.names())}")
    made = []
    for name in chosen:
        bar = StderrProgress(args.quiet)
        try:
            rec = recorder.record(name, args.record_all, progress=bar)
        finally:
            bar.close()
        made.append({"name": name, "seconds": rec.meta["seconds"], "cpu_seconds": rec.meta["cpu_seconds"],
                     "path": str(recordings.path_of(name, args.record_all))})
        if not args.quiet:
            print(f"{name}: {rec.meta['seconds']:.1f} s ({rec.meta['cpu_seconds']:.1f} s of CPU)", file=sys.stderr)
    if args.json:
        emit_json({"recorded": made})
    return 0


def add_parser(sub: Any) -> None:
    demo = sub.add_parser("demo", help="run a teaching demo headless (studio list demos)")
    demo.add_argument("name", metavar="NAME", nargs="?", help="the demo, e.g. optimizer_race (studio list demos)")
    demo.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                      help="set one of the demo's parameters, e.g. --set function=rosenbrock (repeatable)")
    add_record_args(demo, "also save what it computed: " + FORMATS.format(what="its frames")
                    + ", FILE.npz (a recording the Teaching lab can show)")
    demo.add_argument("--recorded", action="store_true", help="with --record: record the recording Studio ships "
                      "(the default settings) instead of computing")
    demo.add_argument("--record-all", metavar="DIR", help="record every demo and Parallelism-lab page at its default "
                      "settings into DIR (resources/demos: the recordings Studio ships)")
    demo.add_argument("--only", metavar="NAMES", help="with --record-all: only these recordings, comma-separated")
    add_output_args(demo, quiet=True, what="the key numbers")
    demo.set_defaults(func=cmd_demo)
