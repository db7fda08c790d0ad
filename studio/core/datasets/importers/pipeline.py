"""import_path: detect what a path holds, read it, check it, and store it once in the cache."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any, cast

from studio.core.contracts.jobs import ImportReport
from studio.core.contracts.progress import ReportCallback
from studio.core.datasets import cache, splits
from studio.core.datasets.catalog import builtin_names
from studio.core.datasets.importers.archive import extract_archive
from studio.core.datasets.importers.cifar_svhn import import_cifar, import_svhn
from studio.core.datasets.importers.csv_table import import_csv
from studio.core.datasets.importers.detect import Source, detect
from studio.core.datasets.importers.folder import import_folder
from studio.core.datasets.importers.idx_files import import_idx
from studio.core.datasets.importers.npz import import_npy_folder, import_npz
from studio.core.datasets.importers.options import ImportOptions
from studio.core.datasets.importers.progress import Progress, import_progress
from studio.core.datasets.importers.result import Imported
from studio.core.datasets.known import KNOWN
from studio.core.errors import DataError

VERSION = 1  # bump when importers change what they produce: old cache keys then miss
MAX_NESTING = 2  # archives inside archives


def read_source(source: Source, options: ImportOptions, progress: Progress, scratch: Path,
                depth: int = 0) -> Imported:
    """Run the importer for ``source`` (archives are unpacked into ``scratch``, inside the cache)."""
    if source.kind == "images":
        return import_folder(source.root, options, progress)
    if source.kind == "csv":
        return import_csv(source.files, options, progress)
    if source.kind == "npz":
        return import_npz(source.root, options, progress)
    if source.kind == "npy":
        return import_npy_folder(source.root, source.files, options, progress)
    if source.kind == "idx":
        return import_idx(source.files, source.path.name, options, progress)
    if source.kind == "cifar":
        return import_cifar(source.variant, source.files, source.path.name, progress)
    if source.kind == "svhn":
        return import_svhn(source.files, source.path.name, progress)
    if source.kind == "archive":
        if depth >= MAX_NESTING:
            raise DataError(f"{source.root.name} is an archive inside an archive inside an archive; unpack it first")
        unpacked = extract_archive(source.root, scratch / f"unpacked{depth}", progress)
        try:
            inner = detect(unpacked)
        except DataError as err:
            raise DataError(f"{source.root.name}: {str(err).replace(str(unpacked), 'the archive')}") from None
        inner.path = source.root  # names and messages refer to what was dropped
        result = read_source(inner, options, progress, scratch, depth + 1)
        shutil.rmtree(unpacked, ignore_errors=True)
        return result
    raise DataError(f"cannot import {source.path}: unknown kind {source.kind}")


def choose_name(imported: Imported, source: Source, options: ImportOptions, key: str) -> tuple[str, str]:
    """(name, kind): the person's name, the classic dataset's name, or one made from the source's name."""
    builtins = builtin_names()
    if options.name:
        name = cache.check_name(options.name)
        if name in builtins and name not in KNOWN:
            raise DataError(f"{name!r} is the name of a built-in dataset; choose another name")
        if name in KNOWN:
            if imported.catalog != name:
                raise DataError(f"{name!r} is the name of the classic dataset {KNOWN[name].title}; these files are "
                                "not it, so choose another name")
            return name, "catalog"
        return name, "imported"
    if imported.catalog:
        return imported.catalog, "catalog"
    base = cache.sanitise(source.stem)
    name, n = base, 1
    while name in builtins or ((m := cache.manifest(name)) is not None and m.get("key") != key):
        n += 1
        name = f"{base}_{n}"
    return name, "imported"


def report(data: dict[str, Any], cached: bool) -> ImportReport:
    keys = ("name", "kind", "num_samples", "num_classes", "classes", "shape", "splits", "source_splits",
            "class_counts", "skipped", "skipped_examples", "notes", "source", "description")
    return cast(ImportReport, {**{k: data.get(k) for k in keys}, "cached": cached})  # the keys named above


def import_path(path: str | Path, options: ImportOptions | None = None,
                progress: ReportCallback | Progress | None = None) -> ImportReport:
    """Import ``path`` into the cache (or find it there) and return its report: name, num_samples,
    num_classes, classes, shape [C, H, W], splits {train, val, test}, skipped, skipped_examples,
    notes, cached."""
    options = options or ImportOptions()
    prog = import_progress(progress)
    from studio.core.datasets.text import labelled, text_import

    if labelled.columns(path, options.text_column, options.label_column):  # text + label columns: classification
        return labelled.import_labelled(path, options, prog, builtin_names())
    if text_import.is_text_source(path, options):  # a .txt or a CSV text column: a text corpus (core/text)
        return text_import.import_text(path, options, prog)
    prog.stage("looking at the source")
    source = detect(path)
    key = cache.make_key(source.path, {"kind": source.kind, **options.key()}, VERSION)
    hit = cache.find_key(key)
    if hit and (not options.name or options.name == hit["name"]):
        return report(hit, cached=True)
    with cache.staging() as stage:
        imported = read_source(source, options, prog, stage)
        imported.validate(source.path.name)
        prog.check()
        name, kind = choose_name(imported, source, options, key)
        data = save(stage, imported, name, kind, key, str(source.path), source.kind, prog)
    prog.finish()
    return report(data, cached=False)


def save(stage: Path, imported: Imported, name: str, kind: str, key: str, source: str, source_kind: str,
         progress: Progress) -> dict[str, Any]:
    """Write ``imported`` as cache entry ``name`` (from the staging folder ``stage``); its manifest."""
    import numpy as np

    progress.stage(f"saving {name} to the cache")
    codes = splits.assign(imported.y, imported.split)
    counts = np.bincount(imported.y, minlength=len(imported.classes))
    c, h, w = imported.x.shape[1:]
    info = {
        "kind": kind, "key": key, "source": source, "source_kind": source_kind,
        "description": imported.description, "num_samples": int(len(imported.y)),
        "num_classes": len(imported.classes), "classes": imported.classes, "shape": [int(c), int(h), int(w)],
        "class_counts": [int(v) for v in counts], "splits": splits.sizes(codes),
        "source_splits": splits.sizes(imported.split), "skipped": imported.skips.count,
        "skipped_examples": imported.skips.examples, "notes": imported.notes,
    }
    return cache.commit(stage, name, {"x": imported.x, "y": imported.y, "split": imported.split}, info)
