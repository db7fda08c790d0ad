"""Labelled text: a CSV with a text column and a label column (e.g. which fortune file a line came from), for
text classification. Read here, stored in the dataset cache as kind ``labelled_text`` (``x`` the UTF-8 bytes of
the lines joined by newlines, ``y`` the label ids), or the bundled ``fortune_sources``.

Which CSV is labelled text: one with a text column (``--text-column`` or one called text/headline/title/…) and a
label column (``--label-column`` or one called label/class/target/y/category); a CSV with only a text column stays
a plain corpus for next-word models.
"""

from __future__ import annotations

import csv
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from studio.core.contracts.jobs import ImportReport
from studio.core.errors import DataError

KIND = "labelled_text"
VERSION = 1
BUNDLED = "fortune_sources"
BUNDLED_FILE = ("data", "fortune_sources.csv")
MIN_PER_CLASS = 2


@dataclass
class LabelledLines:
    lines: list[str]
    labels: list[int]
    classes: list[str]
    skipped: int = 0
    notes: tuple[str, ...] = ()


def _header(path: Path) -> list[str]:
    try:
        with path.open(encoding="utf-8", errors="replace", newline="") as f:
            return next(csv.reader([f.readline(1 << 20)]), [])
    except (OSError, csv.Error):
        return []


def _column(header: list[str], wanted: str | None, names: tuple[str, ...]) -> int | None:
    lowered = [h.strip().lower() for h in header]
    if wanted:
        return lowered.index(wanted.strip().lower()) if wanted.strip().lower() in lowered else None
    return next((lowered.index(n) for n in names if n in lowered), None)


def columns(path: str | Path, text_column: str | None = None,
            label_column: str | None = None) -> tuple[int, int] | None:
    """(text index, label index) when ``path`` is a CSV of labelled text, else None; a label column named but
    missing beside a text column is one DataError."""
    from studio.core.datasets.importers.csv_table import LABEL_NAMES
    from studio.core.datasets.text.reading import TEXT_COLUMNS

    p = Path(path)
    if p.suffix.lower() != ".csv" or not p.is_file():
        return None
    header = _header(p)
    text, label = _column(header, text_column, TEXT_COLUMNS), _column(header, label_column, LABEL_NAMES)
    if text is not None and label is None and label_column:
        raise DataError(f"{p.name} has no column {label_column!r}; its columns are {', '.join(header[:12])}")
    if text is None or label is None or text == label:
        return None
    return text, label


def read_labelled(path: str | Path, text_column: str | None = None, label_column: str | None = None) -> LabelledLines:
    """The (line, label) rows of a labelled-text CSV; rows with an empty text or label are skipped and counted."""
    from studio.core.datasets.importers.result import encode_labels
    from studio.core.datasets.text.reading import MAX_LINE_CHARS

    path = Path(path).expanduser()
    found = columns(path, text_column, label_column)
    if found is None:
        raise DataError(f"{path.name} is not a CSV with a text column and a label column; name them with "
                        "--text-column and --label-column")
    ti, li = found
    lines, raw, skipped = [], [], 0
    try:
        with path.open(encoding="utf-8", newline="") as f:
            rows = csv.reader(f)
            next(rows)
            for row in rows:
                text = " ".join(row[ti].split()) if len(row) > max(ti, li) else ""
                label = " ".join(row[li].split()) if len(row) > max(ti, li) else ""  # a quoted label may hold newlines
                if not text or not label or len(text) > MAX_LINE_CHARS:
                    skipped += 1
                    continue
                lines.append(text)
                raw.append(label)
    except UnicodeDecodeError:
        raise DataError(f"{path.name} is not UTF-8 text; save it as UTF-8") from None
    except csv.Error as err:
        raise DataError(f"{path.name} is not a readable CSV ({err})") from None
    if not lines:
        raise DataError(f"{path.name} has no row with both a text and a label")
    y, classes, note = encode_labels(raw, what=f"{path.name}'s labels")
    counts = class_counts(y, len(classes))
    if len(classes) < 2 or min(counts) < MIN_PER_CLASS:
        raise DataError(f"{path.name} needs at least 2 classes with {MIN_PER_CLASS}+ lines each to classify; "
                        "its labels: " + ", ".join(f"{c} ({n})" for c, n in zip(classes[:8], counts[:8], strict=False)))
    return LabelledLines(lines, [int(v) for v in y], list(classes), skipped, (note,) if note else ())


def class_counts(labels: Any, classes: int) -> list[int]:
    """Lines per class, in one pass (counting each class separately was quadratic: 30,000 classes took minutes)."""
    import numpy as np

    return [int(v) for v in np.bincount(np.asarray(labels, dtype=np.int64), minlength=classes)[:classes]]


def bundled() -> LabelledLines:
    from studio.core.host.paths import resource

    path = resource(*BUNDLED_FILE)
    if not path.is_file():
        raise DataError(f"the bundled labelled corpus {path} is missing; reinstall Studio")
    return read_labelled(path)


def labelled_lines(name: str) -> LabelledLines:
    """The bundled labelled corpus or an imported one."""
    if name == BUNDLED:
        return bundled()
    from studio.core.datasets import cache

    m, arrays = cache.manifest(name) or {}, cache.load_arrays(name)
    lines = bytes(arrays["x"]).decode("utf-8").split("\n")
    return LabelledLines(lines, [int(v) for v in arrays["y"]], list(m.get("classes") or []))


def is_labelled(name: str) -> bool:
    from studio.core.datasets import cache

    return name == BUNDLED or (cache.manifest(name) or {}).get("kind") == KIND


def import_labelled(path: str | Path, options: Any, progress: Any, builtin: Collection[str] = ()) -> ImportReport:
    """Read a labelled-text CSV into the cache (or find it there); the import report. ``builtin``: the names of the
    built-in datasets, which an import may not take (the dataset catalog's; passed in, as the catalog reads this
    module to describe labelled imports)."""
    import numpy as np

    from studio.core.datasets import cache

    path = Path(path).expanduser().resolve()
    key = cache.make_key(path, {"kind": KIND, "text_column": options.text_column,
                                "label_column": options.label_column}, VERSION)
    hit = cache.find_key(key)
    if hit and (not options.name or options.name == hit["name"]):
        return report(hit, cached=True)
    progress.stage(f"reading {path.name}")
    data = read_labelled(path, options.text_column, options.label_column)
    progress.check()
    name = cache.check_name(options.name) if options.name else cache.sanitise(path.stem)
    if name in builtin:
        if options.name:
            raise DataError(f"{name!r} is the name of a built-in dataset; choose another name")
        name = f"{name}_labelled"
    n = len(data.lines)
    counts = class_counts(data.labels, len(data.classes))
    info = {
        "kind": KIND, "key": key, "source": str(path), "source_kind": "csv", "description": path.name,
        "num_samples": n, "num_classes": len(data.classes), "classes": data.classes, "class_counts": counts,
        "shape": [], "splits": {"train": n, "val": 0, "test": 0}, "skipped": data.skipped,
        "skipped_examples": [], "notes": list(data.notes), "words": sum(len(s.split()) for s in data.lines),
    }
    blob = np.frombuffer("\n".join(data.lines).encode("utf-8"), dtype=np.uint8)
    with cache.staging() as stage:
        progress.stage(f"saving {name} to the cache")
        saved = cache.commit(stage, name, {"x": blob, "y": np.array(data.labels, np.int64),
                                           "split": np.zeros(n, np.uint8)}, info)
    progress.finish()
    return report(saved, cached=False)


def report(data: dict[str, Any], cached: bool) -> ImportReport:
    keys = ("name", "kind", "num_samples", "words", "num_classes", "classes", "class_counts", "splits", "skipped",
            "skipped_examples", "notes", "source", "description")
    return cast(ImportReport, {**{k: data.get(k) for k in keys}, "shape": [], "cached": cached})


def describe(m: dict[str, Any]) -> str:
    return (f"Imported labelled text: {m['num_samples']:,} lines in {m['num_classes']} classes for text "
            f"classification with bert_classifier ({m.get('description') or m.get('source', '')})")


def preview(name: str, params: dict[str, Any]) -> tuple[str, LabelledLines | None]:
    """What the data panel says about labelled text (its classes and counts; the lines too) or masked-LM rows."""
    if name == "masked_lm":
        corpus = params.get("corpus", BUNDLED)
        return (f"Masked-LM rows for bert_mlm from the text of {corpus}: each line becomes [CLS] w1 … wn with 15 % "
                f"of its words to guess (80 % shown as [MASK], 10 % as a random word, 10 % unchanged), "
                f"{params.get('copies', 4)} differently masked copies of each training line.", None)
    data = labelled_lines(name)
    counts = class_counts(data.labels, len(data.classes))
    classes = ", ".join(f"{c} {n:,}" for c, n in zip(data.classes, counts, strict=False))
    return (f"{len(data.lines):,} lines of labelled text in {len(data.classes)} classes ({classes}) for "
            f"bert_classifier; each line becomes [CLS] and its word ids.", data)
