"""The ``studio`` entry point: the GUI (``studio [PATH ...]``), or a headless command (``studio train|runs|list|...``).

Torch-free at import: the window must appear before the training back end is loaded.
``studio --install-desktop`` / ``--uninstall-desktop`` add or remove the launcher for the current user.
"""

from __future__ import annotations

import os
import sys

from studio import version_line
from studio.command_names import COMMAND_NAMES
from studio.core.host.child_env import immune_to_working_folder
from studio.platform_check import gui_start_problem

DESKTOP_FLAGS = ("--install-desktop", "--uninstall-desktop")


def not_a_path_or_command(word: str, commands: tuple[str, ...]) -> str | None:
    """Why ``studio WORD`` is neither a command nor a file/folder to open (one line), or None when it is a path."""
    if os.path.exists(word):
        return None
    import difflib

    close = difflib.get_close_matches(word, commands, n=1)
    if close:
        return f"unknown command '{word}'; did you mean '{close[0]}'?"
    if os.sep in word or "." in word:
        return f"no such file or folder: '{word}'"
    return f"unknown command '{word}' (and no such file or folder); see `studio --help` for the commands"


def _frozen_python(argv: list[str]) -> int | None:
    """In a PyInstaller bundle ``sys.executable`` is Studio itself, not Python: serve the two ways Studio
    starts helper processes with it, ``-c CODE`` (the back-end probe) and ``-m studio ARGS``."""
    if len(argv) >= 2 and argv[0] == "-c":
        sys.argv = ["-c", *argv[2:]]
        exec(compile(argv[1], "<string>", "exec"), {"__name__": "__main__"})  # noqa: S102 - as `python -c`
        return 0
    if len(argv) >= 2 and argv[0] == "-m" and argv[1] == "studio":
        return main(argv[2:])
    return None


def main(argv: list[str] | None = None) -> int:
    if getattr(sys, "frozen", False):
        import multiprocessing

        multiprocessing.freeze_support()  # frozen bundles re-enter here in spawned workers
    immune_to_working_folder()  # every process Studio starts imports this Studio, wherever it is started from
    argv = sys.argv[1:] if argv is None else argv
    if getattr(sys, "frozen", False):
        code = _frozen_python(argv)
        if code is not None:
            return code
    if argv[:1] and argv[0] in DESKTOP_FLAGS:
        from studio.desktop import main as desktop_main

        return desktop_main(argv[0])
    if argv[:1] in (["--version"], ["-V"]):
        print(version_line())
        return 0
    if argv and (argv[0] in COMMAND_NAMES or argv[0] in ("-h", "--help")):
        from studio import cli  # every command's module: not on the window's way

        return cli.main(argv)
    problem = not_a_path_or_command(argv[0], COMMAND_NAMES) if argv and not argv[0].startswith("-") else None
    problem = problem or gui_start_problem(argv)
    if problem:
        from studio.cli.terminal_safe import safe_text

        print(f"studio: error: {safe_text(problem)}", file=sys.stderr)  # the word is the user's: shown, not obeyed
        return 2
    from studio.engine.port import engine
    from studio.gui.app.start import run_gui

    return run_gui(argv, engine())  # the composition root: the GUI gets the engine, never imports it


if __name__ == "__main__":
    sys.exit(main())
