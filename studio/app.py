"""The ``studio`` entry point: the GUI, or a headless command (``studio train|runs|list|...``).

Torch-free at import: the window must appear before the training back end is loaded.
"""

from __future__ import annotations

import multiprocessing
import sys


def main(argv: list[str] | None = None) -> int:
    multiprocessing.freeze_support()  # frozen bundles re-enter here in spawned workers
    argv = sys.argv[1:] if argv is None else argv
    from studio import cli

    if argv and (argv[0] in cli.COMMANDS or argv[0] in ("-h", "--help")):
        return cli.main(argv)
    from studio.gui.main_window import run_gui

    return run_gui(argv)


if __name__ == "__main__":
    sys.exit(main())
