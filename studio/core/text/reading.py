"""Read a corpus of short lines: a .txt file (one line per sample) or one text column of a CSV.

Bad input is skipped and counted (empty lines, lines that are not UTF-8, lines longer than
``MAX_LINE_CHARS``) or refused with a sentence (not text at all, no usable line, no text column).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path

from studio.core.datasets.importers.result import Skips
from studio.core.errors import DataError

MAX_LINE_CHARS = 1000  # a "line" longer than this is a paragraph or a broken file, not a headline
MAX_BYTES = 200 * 1024 * 1024
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


def _raw(path: Path) -> bytes:
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise DataError(f"{path.name} is {size / 2**20:.0f} MB; Studio reads text corpora up to "
                            f"{MAX_BYTES // 2**20} MB")
        return path.read_bytes()
    except OSError as err:
        raise DataError(f"cannot read {path}: {err.strerror or err}") from None


def _check_text(path: Path, raw: bytes) -> bytes:
    """Refuse files that are not UTF-8 text at all (UTF-16, binary); drop a UTF-8 byte-order mark."""
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")) or b"\x00" in raw[:8192]:
        what = "UTF-16 text" if raw.startswith((b"\xff\xfe", b"\xfe\xff")) else "binary data, not text"
        raise DataError(f"{path.name} holds {what}; save it as UTF-8 text with one sample per line")
    return raw[3:] if raw.startswith(b"\xef\xbb\xbf") else raw


def _keep(text: str, where: str, out: TextLines) -> None:
    line = " ".join(text.split())
    if not line:
        out.empty += 1
    elif len(line) > MAX_LINE_CHARS:
        out.skips.add(where, f"{len(line):,} characters (more than {MAX_LINE_CHARS})")
    else:
        out.lines.append(line)


def read_txt(path: Path) -> TextLines:
    """One sample per line; lines that are not valid UTF-8 are skipped and counted."""
    raw = _check_text(path, _raw(path))
    out = TextLines([], source=str(path))
    bad = 0
    for number, chunk in enumerate(raw.splitlines(), 1):
        try:
            text = chunk.decode("utf-8")
        except UnicodeDecodeError:
            bad += 1
            out.skips.add(f"line {number}", "not UTF-8 (save the file as UTF-8)")
            continue
        _keep(text, f"line {number}", out)
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


def read_csv_text(path: Path, column: str | None = None) -> TextLines:
    """The text column of a CSV with a header row (named, or the one called text/headline/title/…)."""
    raw = _check_text(path, _raw(path))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise DataError(f"{path.name} is not UTF-8 (byte {err.start:,}); save it as UTF-8") from None
    rows = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(rows)
        index = text_column(header, column, path.name)
        out = TextLines([], source=str(path))
        for number, row in enumerate(rows, 2):
            if len(row) <= index:
                out.skips.add(f"row {number}", f"has {len(row)} columns, the text is column {index + 1}")
                continue
            _keep(row[index], f"row {number}", out)
    except StopIteration:
        raise DataError(f"{path.name} is empty") from None
    except csv.Error as err:
        raise DataError(f"{path.name} is not a readable CSV ({err})") from None
    return _enough(path, out)


def _enough(path: Path, out: TextLines) -> TextLines:
    if len(out.lines) < MIN_LINES:
        raise DataError(f"{path.name} has {len(out.lines)} usable lines; a text corpus needs at least {MIN_LINES} "
                        f"(skipped: {out.empty} empty, {out.skips.count} other)")
    return out


def read_corpus(path: str | Path, column: str | None = None) -> TextLines:
    """Lines of a .txt file or of a CSV's text column."""
    path = Path(path).expanduser()
    if not path.is_file():
        raise DataError(f"{path} is not a file")
    if path.suffix.lower() == ".csv":
        return read_csv_text(path, column)
    return read_txt(path)
