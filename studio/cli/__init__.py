"""The ``studio`` command line: the parser and the command table. Each command lives in its own module here
(``add_parser(subparsers)`` registers it with ``set_defaults(func=...)``; ``COMMANDS`` names it); what they share
is in ``_shared.py``. Exit codes: 0 done or stopped by the user, 2 a user-fixable error (one line on stderr, no
traceback), 3 a run that failed."""

from __future__ import annotations

import argparse
import sys
from types import ModuleType
from typing import Any

from studio import version_line
from studio.cli import (
    allreduce,
    async_sgd,
    attach,
    attention,
    catalog,
    check,
    cluster,
    compare,
    compress,
    data,
    dataload,
    demo,
    dlrm,
    export,
    fit,
    generate,
    import_logs,
    landscape,
    lr_find,
    model,
    noise_scale,
    parallel,
    queue,
    runs,
    scale,
    schedule,
    search,
    train,
    trust,
)
from studio.cli import eval as eval_cmd
from studio.cli.terminal_safe import safe_streams
from studio.core.errors import StudioError

# In the order ``studio --help`` lists them. A command module imports nothing from this one: no import cycle.
COMMAND_MODULES: tuple[ModuleType, ...] = (train, runs, catalog, model, landscape, data, demo, queue, search, lr_find,
                                           compare,
                                           eval_cmd, export, compress, fit, scale, parallel, async_sgd, dataload,
                                           schedule, cluster, generate, attention, check,
                                           import_logs, attach, noise_scale,
                                           allreduce, dlrm, trust)

COMMANDS = tuple(name for module in COMMAND_MODULES for name in module.COMMANDS)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="studio", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Studio: train and see neural networks.\n\n"
                    "  studio              open the window (the GUI)\n"
                    "  studio PATH ...     open the window with these files or folders (a config .toml, a run's\n"
                    "                      folder, a run store, a folder of TensorBoard logs, or a dataset folder\n"
                    "                      or archive to import)\n"
                    "  studio COMMAND ...  run a command headless, without a window (below)",
        epilog="`studio COMMAND --help` describes one command. Exit codes: 0 done, 2 a problem you can fix "
               "(one line on stderr), 3 a run that failed.")
    parser.add_argument("-V", "--version", action="version", version=version_line(),
                        help="print Studio's version (and torch's) and exit")
    sub = parser.add_subparsers(dest="command", required=True)
    for module in COMMAND_MODULES:
        module.add_parser(sub)
    return parser


def _warn_recovered(recovery: Any) -> None:
    """A damaged run store was rebuilt: one line on stderr (core/runs/db.Recovery)."""
    print(f"studio: warning: {recovery.message()}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    with safe_streams():  # names, tags and messages are user text: never a command to the terminal
        return _main(argv)


def _main(argv: list[str] | None) -> int:
    args = build_parser().parse_args(argv)
    from studio.core.runs.db import RECOVERY_LISTENERS

    if _warn_recovered not in RECOVERY_LISTENERS:
        RECOVERY_LISTENERS.append(_warn_recovered)
    try:
        return args.func(args)
    except StudioError as err:
        print(f"studio: error: {err}", file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt:
        return 0
    except BrokenPipeError:  # `studio list models | head`: the reader left; not an error
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
