"""CSV tables with a label column and one column per pixel (the Sign Language MNIST layout:
``label,pixel1,...,pixel784``). Parsed in chunks with numpy; a bad row is named exactly."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from studio.core.datasets.importers.options import ChoiceNeeded, ImportOptions
from studio.core.datasets.importers.progress import Progress
from studio.core.datasets.importers.result import Imported, encode_labels, squeeze_to_nchw, to_uint8
from studio.core.errors import DataError

LABEL_NAMES = ("label", "labels", "class", "target", "y", "category")
CHUNK_LINES = 4096
MAX_LINE_CHARS = 16 << 20  # a longer row is refused after reading this much, not after reading it all
MAX_COLUMNS = 1 << 20  # a 1024×1024 grey image, or 590×590 in colour


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _read_header(path: Path) -> tuple[list[str], bool]:
    """(column names, whether the first line is a header). Without one, columns are numbered."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as fh:
            line = fh.readline(MAX_LINE_CHARS + 1)
        if len(line) > MAX_LINE_CHARS:
            raise DataError(f"{path.name}: row 1 is longer than {MAX_LINE_CHARS >> 20} M characters; not a table "
                            "of images Studio can read")
        if line.count(",") + 1 > MAX_COLUMNS:
            raise DataError(f"{path.name} has {line.count(',') + 1:,} columns; Studio reads at most {MAX_COLUMNS:,} "
                            "(one per pixel)")
        first = next(csv.reader([line]), None)
    except UnicodeDecodeError:
        raise DataError(f"{path.name} is not a text CSV file") from None
    except (OSError, csv.Error) as err:
        raise DataError(f"cannot read {path.name}: {err}") from None
    if not first or not any(c.strip() for c in first):
        raise DataError(f"{path.name} is empty")
    cells = [c.strip() for c in first]
    if all(_is_number(c) for c in cells):
        return [str(i) for i in range(len(cells))], False
    return cells, True


def label_index(path: Path, columns: list[str], has_header: bool, wanted: str | None) -> tuple[int, str | None]:
    """The label column's index and a note, from ``wanted`` or the usual names; ChoiceNeeded if unclear."""
    lower = [c.lower() for c in columns]
    if wanted is not None:
        if wanted.lower() in lower:
            return lower.index(wanted.lower()), None
        raise DataError(f"{path.name} has no column {wanted!r}; its columns are "
                        f"{', '.join(columns[:8])}{'…' if len(columns) > 8 else ''}")
    for name in LABEL_NAMES:
        if name in lower:
            return lower.index(name), None
    if not has_header:
        return 0, f"{path.name} has no header row; its first column was taken as the label"
    raise ChoiceNeeded(
        f"{path.name} has no column named {', '.join(LABEL_NAMES[:-1])} or {LABEL_NAMES[-1]}; "
        "choose the label column (--label-column NAME)", "label_column", columns)


def _locate_error(path: Path, numbered: list[tuple[int, str]], ncols: int, label_col: int,
                  columns: list[str]) -> DataError:
    """The exact row and column that (line number, text) lines failed on, as a message."""
    for line_no, line in numbered:
        row = next(csv.reader([line]), [])
        if len(row) != ncols:
            return DataError(f"{path.name}: row {line_no} has {len(row)} values but the table has {ncols} columns "
                             "(ragged rows)")
        for j, cell in enumerate(row):
            if j == label_col:
                if not cell.strip():
                    return DataError(f"{path.name}: row {line_no} has no label")
                continue
            if not _is_number(cell):
                what = repr(cell) if cell.strip() else "an empty cell"
                return DataError(f"{path.name}: row {line_no}, column {columns[j]!r} holds {what}, "
                                 "not a pixel value (pixels must be numbers)")
    first, last = numbered[0][0], numbered[-1][0]
    return DataError(f"{path.name}: rows {first}..{last} cannot be read as numbers")


def read_csv(path: Path, options: ImportOptions, progress: Progress) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(pixels float32 (N, D), raw labels (N,), notes) of one CSV file."""
    columns, has_header = _read_header(path)
    notes: list[str] = []
    label_col, note = label_index(path, columns, has_header, options.label_column)
    if note:
        notes.append(note)
    ncols = len(columns)
    if ncols < 2:
        raise DataError(f"{path.name} has only one column; it needs a label column and pixel columns")
    pixel_cols = [j for j in range(ncols) if j != label_col]
    xs, ys = [], []
    progress.stage(f"reading {path.name}", path.stat().st_size)
    with open(path, encoding="utf-8-sig", newline="") as fh:
        if has_header:
            progress.advance(len(fh.readline()))
        line_no = 2 if has_header else 1
        while True:
            lines = fh.readlines(CHUNK_LINES * 4 * ncols)
            if not lines:
                break
            progress.advance(sum(len(line) for line in lines))
            numbered = [(line_no + i, line) for i, line in enumerate(lines) if line.strip()]
            line_no += len(lines)
            if not numbered:
                continue
            for n, line in numbered:
                if '"' not in line and line.count(",") != ncols - 1:
                    raise _locate_error(path, [(n, line)], ncols, label_col, columns)
            kept = [line for _, line in numbered]
            try:
                xs.append(np.loadtxt(kept, delimiter=",", dtype=np.float32, usecols=pixel_cols, ndmin=2,
                                     quotechar='"'))
                ys.append(np.loadtxt(kept, delimiter=",", dtype=str, usecols=[label_col], ndmin=1, quotechar='"'))
            except ValueError:
                raise _locate_error(path, numbered, ncols, label_col, columns) from None
    if not xs:
        raise DataError(f"{path.name} has a header but no rows")
    labels = np.concatenate(ys)
    labels = np.char.strip(labels)
    if np.any(labels == ""):
        row = int(np.argmax(labels == "")) + (2 if has_header else 1)
        raise DataError(f"{path.name}: row {row} has no label")
    return np.concatenate(xs), labels, notes


def _numeric_labels(labels: np.ndarray) -> np.ndarray:
    lowered = np.char.lower(labels.astype(str))
    bad = np.isin(lowered, ("nan", "+nan", "-nan", "inf", "+inf", "-inf", "infinity", "-infinity"))
    if bad.any():
        raise DataError(f"label {labels[int(np.argmax(bad))]!r} (sample {int(np.argmax(bad)) + 1}) is not a class: "
                        "labels must be finite numbers or names")
    try:
        values = labels.astype(np.float64)
    except ValueError:
        return labels
    return values.astype(np.int64) if np.all(values == np.round(values)) else labels


def import_csv(files: list[tuple[Path, int]], options: ImportOptions, progress: Progress) -> Imported:
    """One CSV, or several (train/test) with the same columns, as one dataset."""
    xs: list[np.ndarray] = []
    labels: list[np.ndarray] = []
    codes: list[np.ndarray] = []
    notes: list[str] = []
    for path, code in files:
        x, y, file_notes = read_csv(path, options, progress)
        if xs and x.shape[1] != xs[0].shape[1]:
            raise DataError(f"{path.name} has {x.shape[1]} pixel columns but {files[0][0].name} has {xs[0].shape[1]}")
        xs.append(x)
        labels.append(y)
        codes.append(np.full(len(y), code, np.uint8))
        notes += file_notes
    source = files[0][0].name
    x = np.concatenate(xs)
    raw = _numeric_labels(np.concatenate(labels))
    y, classes, note = encode_labels(raw, what="labels")
    if note:
        notes.append(note)
    images = squeeze_to_nchw(to_uint8(x, source, notes), source, options.shape)
    c, h, w = images.shape[1:]
    what = "a CSV table" if len(files) == 1 else f"{len(files)} CSV tables (train/test)"
    return Imported(np.ascontiguousarray(images), y, np.concatenate(codes), classes, notes=notes,
                    description=f"{what} of {c}×{h}×{w} images, {len(classes)} classes")
