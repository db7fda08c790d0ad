"""What a child process writes to stderr, kept in a file, so a child that dies before it can report (an import
that fails, a crash in native code) is not a silent "exited with code 1": its parent reads the last lines back.

In the child, :func:`capture` sends file descriptor 2 to the file (native code and a fatal error's traceback from
``faulthandler`` land there) and makes ``sys.stderr`` write to the file and to the terminal it had (Python's own
warnings and tracebacks are still seen where the child was started). In the parent, :func:`last_lines` reads the
tail, and :func:`start_check` runs the child's first import in a fresh interpreter with the same working folder
and environment when the child died before it could open the file.
"""

from __future__ import annotations

import faulthandler
import io
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import IO, Any, TextIO

TAIL_LINES = 8
TAIL_CHARS = 240  # a line longer than this is cut: the message is for a person, the file has it whole


class _Tee(io.TextIOBase):
    """A text stream writing each piece to two: the file (descriptor 2 now) and the terminal it replaced."""

    def __init__(self, file: TextIO, terminal: TextIO) -> None:
        self.file, self.terminal = file, terminal

    def write(self, text: str) -> int:
        for stream in (self.file, self.terminal):
            try:
                stream.write(text)
                stream.flush()
            except (OSError, ValueError):  # the terminal may be gone (a closed window): the file still has it
                pass
        return len(text)

    def flush(self) -> None:
        for stream in (self.file, self.terminal):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass

    def fileno(self) -> int:
        return self.file.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return "utf-8"


def capture(path: str | os.PathLike[str]) -> None:
    """In the child, from its first line: stderr goes to ``path`` (appended) and, for Python's own writes, to the
    terminal too. A file that cannot be opened (a full or read-only disk) leaves stderr as it was."""
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    except OSError:
        return
    terminal = os.fdopen(os.dup(2), "w", encoding="utf-8", errors="backslashreplace", closefd=True)
    os.dup2(fd, 2)
    os.close(fd)
    file = os.fdopen(os.dup(2), "w", encoding="utf-8", errors="backslashreplace", closefd=True)
    sys.stderr = _Tee(file, terminal)
    faulthandler.enable(file=file)


def last_lines(path: str | os.PathLike[str] | None, lines: int = TAIL_LINES) -> str:
    """The last ``lines`` non-empty lines of ``path`` (each cut to ``TAIL_CHARS``), '' when there are none."""
    if path is None:
        return ""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            start = max(0, f.tell() - 64 * 1024)
            f.seek(start)
            text = f.read().decode("utf-8", errors="replace")
    except OSError:
        return ""
    rows = text.splitlines()[1 if start else 0:]  # the first row read may be the end of a longer line
    return tail("\n".join(rows), lines)


def tail(text: str, lines: int = TAIL_LINES) -> str:
    """The last ``lines`` non-empty lines of ``text``, each cut to ``TAIL_CHARS``."""
    kept = [line.rstrip()[:TAIL_CHARS] for line in text.splitlines() if line.strip()]
    return "\n".join(kept[-lines:])


def last_lines_of(stream: IO[str], lines: int = TAIL_LINES) -> str:
    """The last ``lines`` non-empty lines of an open text file a child writes its stderr to (read from the
    start: the file is a child's, small), '' when there are none or it cannot be read."""
    try:
        stream.seek(0)
        return tail(stream.read(), lines)
    except (OSError, ValueError):
        return ""


CRASH_SIGNALS = frozenset({signal.SIGSEGV, signal.SIGABRT, signal.SIGBUS, signal.SIGFPE, signal.SIGILL})


def speaks_for_its_death(exitcode: int | None) -> bool:
    """Whether a child's stderr may say why it ended with ``exitcode``: an error exit, or a crash that Python's
    fault handler describes (not SIGKILL or SIGTERM: killed from outside, its stderr knows nothing of it)."""
    return exitcode is not None and (exitcode > 0 or -exitcode in CRASH_SIGNALS)


def with_last_words(death: str, words: str) -> str:
    """``death`` and, below it, the last lines the child wrote to stderr (what it died of, where it could say)."""
    return f"{death}; its last lines on stderr:\n{words}" if words else death


START_MODULES = ("studio.app", "studio.engine.training.entry")  # a child runs Studio's entry script (as its
# ``__main__``) and then the target's module before it can report anything
TASK_START_MODULES = ("studio.app", "studio.engine.jobs.process_job")  # the same for a task's child


def start_check(modules: tuple[str, ...] = START_MODULES, timeout_s: float = 30.0, **popen: Any) -> str:
    """Import ``modules`` in a fresh interpreter started as the children are (same executable, working folder and
    environment) and return the last lines it wrote to stderr when that fails ('' when they import)."""
    try:
        out = subprocess.run([sys.executable, "-c", "import " + ", ".join(modules)], capture_output=True, text=True,
                             timeout=timeout_s, stdin=subprocess.DEVNULL, **popen)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    if out.returncode == 0:
        return ""
    return tail(out.stderr)
