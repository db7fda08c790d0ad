"""Read a corpus of short lines: a .txt file (one line per sample) or one text column of a CSV.

The file is read as a stream (``raw_lines``), so memory is bounded by the longest line allowed, not the file.
Bad input is skipped and counted as it is met (empty lines, lines that are not UTF-8, lines longer than
``MAX_LINE_CHARS``) or refused with a sentence (not text at all, no usable line, no text column).
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from studio.core.datasets.importers.result import Skips
from studio.core.errors import DataError

MAX_LINE_CHARS = 1000  # a "line" longer than this is a paragraph or a broken file, not a headline
MAX_BYTES = 200 * 1024 * 1024
MAX_CSV_LINE_BYTES = 16 << 20  # a CSV's physical line (all its columns); longer refuses the file
BLOCK = 1 << 20  # bytes read at a time
MIN_LINES = 10
TEXT_COLUMNS = ("text", "headline", "headlines", "title", "sentence", "line", "content")
TEXT_SUFFIXES = (".txt", ".text")


@dataclass
class TextLines:
    """The lines kept, what was skipped, and where they came from."""

    lines: list[str]
    skips: Skips = field(default_factory=Skips)
    empty: int = 0  # empty lines are counted, not named
    source: str = ""


def _open(path: Path) -> BinaryIO:
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise DataError(f"{path.name} is {size / 2**20:.0f} MB; Studio reads text corpora up to "
                            f"{MAX_BYTES // 2**20} MB")
        return path.open("rb")
    except OSError as err:
        raise DataError(f"cannot read {path}: {err.strerror or err}") from None


def _check_text(path: Path, head: bytes) -> None:
    """Refuse files that are not UTF-8 text at all (UTF-16, binary), from their first bytes."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")) or b"\x00" in head[:8192]:
        what = "UTF-16 text" if head.startswith((b"\xff\xfe", b"\xfe\xff")) else "binary data, not text"
        raise DataError(f"{path.name} holds {what}; save it as UTF-8 text with one sample per line")


def raw_lines(fh: BinaryIO, cap: int, keepends: bool = False, block: int = BLOCK) -> Iterator[bytes | None]:
    """The file's lines (split at \\n, \\r\\n or \\r, as ``bytes.splitlines``), read ``block`` bytes at a time;
    a line longer than ``cap`` bytes is ``None``, met and passed over without being held in memory (at most
    ``cap + block`` bytes are). The first line loses a UTF-8 byte-order mark."""
    head = fh.read(3)
    tail, skipping, drop_lf = (b"" if head == b"\xef\xbb\xbf" else head), False, False
    while True:
        data = fh.read(block)
        if drop_lf and data.startswith(b"\n"):
            data = data[1:]
        drop_lf = False
        pieces = (tail + data).splitlines(keepends=True)
        tail = b""
        if data and pieces and (pieces[-1].endswith(b"\r") or not pieces[-1].endswith(b"\n")):
            tail = pieces.pop()  # unfinished, or a \r whose \n may be in the next block
        for piece in pieces:
            line = piece.rstrip(b"\r\n")
            if skipping or len(line) > cap:
                skipping = False
                yield None
            else:
                yield piece if keepends else line
        if not data:
            if skipping or len(tail.rstrip(b"\r")) > cap:
                yield None
            elif tail:
                yield tail if keepends else tail.rstrip(b"\r")
            return
        if len(tail.rstrip(b"\r")) > cap:  # an overlong line: pass over the rest of it
            skipping, drop_lf = not tail.endswith(b"\r"), tail.endswith(b"\r")
            if drop_lf:
                yield None
            tail = b""


def _keep(text: str, where: str, out: TextLines, max_chars: int) -> None:
    line = " ".join(text.split())
    if not line:
        out.empty += 1
    elif len(line) > max_chars:
        out.skips.add(where, f"{len(line):,} characters (more than {max_chars})")
    else:
        out.lines.append(line)


def read_txt(path: Path, max_line_chars: int = MAX_LINE_CHARS) -> TextLines:
    """One sample per line, read as a stream; lines that are not valid UTF-8 or longer than ``max_line_chars``
    are skipped and counted as they are met (a 190 MB one-line file never sits in memory)."""
    out = TextLines([], source=str(path))
    bad = 0
    cap = 4 * max_line_chars + 4096  # bytes: any line of max_line_chars characters with ordinary spacing
    with _open(path) as fh:
        _check_text(path, fh.peek(8192)[:8192] if hasattr(fh, "peek") else b"")
        for number, chunk in enumerate(raw_lines(fh, cap), 1):
            if chunk is None:
                out.skips.add(f"line {number}", f"more than {max_line_chars:,} characters")
                continue
            try:
                text = chunk.decode("utf-8")
            except UnicodeDecodeError:
                bad += 1
                out.skips.add(f"line {number}", "not UTF-8 (save the file as UTF-8)")
                continue
            _keep(text, f"line {number}", out, max_line_chars)
    if bad and bad > len(out.lines):
        raise DataError(f"{path.name} is not UTF-8 text ({bad:,} of its lines are not); save it as UTF-8")
    return _enough(path, out)


def text_column(header: list[str], wanted: str | None, name: str) -> int:
    """The index of the CSV column that holds the text."""
    lowered = [h.strip().lower() for h in header]
    if wanted:
        if wanted.strip().lower() not in lowered:
            raise DataError(f"{name} has no column {wanted!r}; its columns are {', '.join(header[:12])}")
        return lowered.index(wanted.strip().lower())
    for candidate in TEXT_COLUMNS:
        if candidate in lowered:
            return lowered.index(candidate)
    if len(header) == 1:
        return 0
    raise DataError(f"which column of {name} holds the text? Name it with --text-column (columns: "
                    f"{', '.join(header[:12])})")


def read_csv_text(path: Path, column: str | None = None, max_line_chars: int = MAX_LINE_CHARS) -> TextLines:
    """The text column of a CSV with a header row (named, or the one called text/headline/title/…), read as a
    stream: a physical line longer than ``MAX_CSV_LINE_BYTES`` refuses the file as it is met."""
    with _open(path) as fh:
        _check_text(path, fh.peek(8192)[:8192] if hasattr(fh, "peek") else b"")
        rows = csv.reader(_decoded(path, raw_lines(fh, MAX_CSV_LINE_BYTES, keepends=True)))
        try:
            header = next(rows)
            index = text_column(header, column, path.name)
            out = TextLines([], source=str(path))
            for number, row in enumerate(rows, 2):
                if len(row) <= index:
                    out.skips.add(f"row {number}", f"has {len(row)} columns, the text is column {index + 1}")
                    continue
                _keep(row[index], f"row {number}", out, max_line_chars)
        except StopIteration:
            raise DataError(f"{path.name} is empty") from None
        except csv.Error as err:
            raise DataError(f"{path.name} is not a readable CSV ({err})") from None
    return _enough(path, out)


def _decoded(path: Path, lines: Iterator[bytes | None]) -> Iterator[str]:
    for number, raw in enumerate(lines, 1):
        if raw is None:
            raise DataError(f"{path.name}: line {number} is longer than {MAX_CSV_LINE_BYTES >> 20} MB; "
                            "not a table of text")
        try:
            yield raw.decode("utf-8")
        except UnicodeDecodeError as err:
            raise DataError(f"{path.name} is not UTF-8 (line {number}, byte {err.start:,}); save it as UTF-8") from None


def _enough(path: Path, out: TextLines) -> TextLines:
    if len(out.lines) < MIN_LINES:
        raise DataError(f"{path.name} has {len(out.lines)} usable lines; a text corpus needs at least {MIN_LINES} "
                        f"(skipped: {out.empty} empty, {out.skips.count} other"
                        + (f", e.g. {out.skips.examples[0]})" if out.skips.examples else ")"))
    return out


def read_corpus(path: str | Path, column: str | None = None, max_line_chars: int = MAX_LINE_CHARS) -> TextLines:
    """Lines of a .txt file or of a CSV's text column (read as a stream: memory stays bounded by the longest
    line allowed, not the file)."""
    path = Path(path).expanduser()
    if not path.is_file():
        raise DataError(f"{path} is not a file")
    if path.suffix.lower() == ".csv":
        return read_csv_text(path, column, max_line_chars)
    return read_txt(path, max_line_chars)
