"""Importing a text corpus (a .txt, one line per sample, or a CSV text column) into the dataset cache.

Above the registry: a new corpus may not take a built-in dataset's name. Stored as core/datasets/text/store.py says.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

from studio.core.contracts.jobs import ImportReport
from studio.core.datasets import cache
from studio.core.datasets.catalog import builtin_names
from studio.core.datasets.text.reading import read_corpus
from studio.core.datasets.text.store import KIND, VERSION
from studio.core.errors import DataError


def import_text(path: str | Path, options: Any, progress: Any) -> ImportReport:
    """Read a .txt or a CSV text column into the cache (or find it there); the import report."""
    import numpy as np

    path = Path(path).expanduser().resolve()
    key = cache.make_key(path, {"kind": KIND, "text_column": options.text_column}, VERSION)
    hit = cache.find_key(key)
    if hit and (not options.name or options.name == hit["name"]):
        return report(hit, cached=True)
    progress.stage(f"reading {path.name}")
    text = read_corpus(path, options.text_column)
    progress.check()
    name = cache.check_name(options.name) if options.name else cache.sanitise(path.stem)
    if name in builtin_names():
        if options.name:
            raise DataError(f"{name!r} is the name of a built-in dataset; choose another name")
        name = f"{name}_text"
    n = len(text.lines)
    notes = [f"skipped {text.empty:,} empty lines"] if text.empty else []
    info = {
        "kind": KIND, "key": key, "source": str(path), "source_kind": "text", "description": path.name,
        "num_samples": n, "num_classes": 0, "classes": [], "shape": [],
        "splits": {"train": n, "val": 0, "test": 0}, "skipped": text.skips.count + text.empty,
        "skipped_examples": text.skips.examples, "notes": notes,
        "words": sum(len(s.split()) for s in text.lines),
    }
    blob = np.frombuffer("\n".join(text.lines).encode("utf-8"), dtype=np.uint8)
    with cache.staging() as stage:
        progress.stage(f"saving {name} to the cache")
        data = cache.commit(stage, name, {"x": blob, "y": np.zeros(n, np.int64), "split": np.zeros(n, np.uint8)},
                            info)
    progress.finish()
    return report(data, cached=False)


def report(data: dict[str, Any], cached: bool) -> ImportReport:
    keys = ("name", "kind", "num_samples", "words", "splits", "skipped", "skipped_examples", "notes", "source",
            "description")
    return cast(ImportReport, {**{k: data.get(k) for k in keys}, "num_classes": 0, "classes": [], "shape": [],
                               "cached": cached})  # the keys named above


def summary_text(r: ImportReport) -> str:
    """The CLI's one-paragraph report of a text import."""
    lines = [f"{r['name']}: {r['num_samples']:,} lines, {r.get('words') or 0:,} words of text for next-word models "
             f"({'already in the cache' if r.get('cached') else 'imported'})"]
    if r.get("skipped"):
        lines.append(f"skipped {r['skipped']} lines" + (": " + "; ".join(r.get("skipped_examples") or [])
                                                       if r.get("skipped_examples") else ""))
    lines += [f"note: {n}" for n in r.get("notes") or []]
    return "\n".join(lines)


def is_text_source(path: str | Path, options: Any) -> bool:
    """A .txt file, or a CSV whose text column is named or called text/headline/title/…"""
    p = Path(path)
    suffix = p.suffix.lower()
    if not p.is_file() or suffix not in (".txt", ".text", ".csv"):
        return False
    if suffix != ".csv" or getattr(options, "text_column", None):
        return True
    import csv

    from studio.core.datasets.text.reading import TEXT_COLUMNS

    try:
        with p.open(encoding="utf-8", errors="replace", newline="") as f:
            header = next(csv.reader([f.readline(1 << 20)]), [])  # the first line, 1 M characters at most
    except (OSError, csv.Error):
        return False
    return any(h.strip().lower() in TEXT_COLUMNS for h in header)
