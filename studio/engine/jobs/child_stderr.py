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
import subprocess
import sys
from pathlib import Path
from typing import Any, TextIO

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
    sys.stderr = _Tee(file, terminal)  # type: ignore[assignment]
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
    kept = [line.rstrip()[:TAIL_CHARS] for line in rows if line.strip()]
    return "\n".join(kept[-lines:])


START_MODULES = ("studio.app", "studio.engine.training.entry")  # a child runs Studio's entry script (as its
# ``__main__``) and then the target's module before it can report anything


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
    kept = [line.rstrip()[:TAIL_CHARS] for line in out.stderr.splitlines() if line.strip()]
    return "\n".join(kept[-TAIL_LINES:])
