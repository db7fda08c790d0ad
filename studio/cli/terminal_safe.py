"""What the command line prints is text, never a command to the terminal.

A run's name, a tag, a message or a file name is user-controlled, and on a shared store anyone's: printed raw, an
escape sequence in it is obeyed by the terminal (``ESC ] 52`` sets the clipboard, others rewrite the screen or the
window title). ``main`` in ``studio/cli/__init__.py`` wraps stdout and stderr in :class:`SafeStream` for the whole
command, so every line printed shows such characters as visible escapes (``\\x1b``) instead: the C0 and C1 control
characters but tab and newline, DEL, and the Unicode bidirectional overrides that reorder what a line seems to say.
A carriage return is kept only where a write begins with it (the progress line redrawing itself). JSON output needs
nothing more: ``json.dumps`` already writes every control character as ``\\u001b``.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe_text(text: str) -> str:
    """``text`` with every character a terminal would act on written as a visible escape."""
    return _UNSAFE.sub(_visible, text)


class SafeStream:
    """A text stream that writes :func:`safe_text` of what it is given; everything else is the wrapped stream's."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        if text.startswith("\r"):  # the progress line's redraw: the one carriage return Studio writes itself
            return self._stream.write("\r" + safe_text(text[1:]))
        return self._stream.write(safe_text(text))

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:  # flush, isatty, fileno, encoding, buffer, …
        return getattr(self._stream, name)


@contextmanager
def safe_streams() -> Iterator[None]:
    """stdout and stderr as :class:`SafeStream` for the block (restored after it)."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = SafeStream(saved[0]), SafeStream(saved[1])
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
