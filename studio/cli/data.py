"""``studio data import|list|fetch|remove``: datasets from the command line.

``studio data import PATH [--name NAME] [--json]`` imports a folder of class folders, a zip or
tar.gz, a CSV, an .npz or a folder of .npy files, or IDX files into the cache; with ``--json`` the
last stdout line is the report. Bad input: exit 2 and one line on stderr.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from studio.cli._shared import StderrProgress, add_output_args
from studio.core.contracts.jobs import ImportReport
from studio.core.errors import DataError

COMMANDS = ("data",)


def _options(args: argparse.Namespace) -> Any:
    from studio.core.datasets.importers.options import ImportOptions, parse_ints

    return ImportOptions(
        name=args.name,
        size=parse_ints(args.size, "--size", (2,)) if args.size else None,  # type: ignore[arg-type]
        channels=args.channels,
        label_column=args.label_column,
        shape=parse_ints(args.shape, "--shape", (2, 3)) if args.shape else None,
        x_key=args.x_key,
        y_key=args.y_key,
        text_column=args.text_column,
    )


def summary_text(r: ImportReport) -> str:
    if r.get("kind") == "text":
        from studio.core.datasets.text.text_import import summary_text as text_summary

        return text_summary(r)
    if r.get("kind") == "labelled_text":
        counts = ", ".join(f"{c} {n:,}" for c, n in zip(r["classes"], r.get("class_counts") or [], strict=False))
        return (f"{r['name']}: {r['num_samples']:,} lines of labelled text in {r['num_classes']} classes ({counts}) "
                f"for bert_classifier ({'already in the cache' if r.get('cached') else 'imported'})"
                + (f"; skipped {r['skipped']} rows without a text or a label" if r.get("skipped") else ""))
    c, h, w = r["shape"]
    s = r["splits"]
    lines = [f"{r['name']}: {r['num_samples']:,} images {c}×{h}×{w}, {r['num_classes']} classes"
             f" ({'already in the cache' if r.get('cached') else 'imported'}); "
             f"split train {s['train']:,} / val {s['val']:,} / test {s['test']:,}"]
    if r.get("skipped"):
        lines.append(f"skipped {r['skipped']} files: " + "; ".join(r.get("skipped_examples") or []))
    lines += [f"note: {n}" for n in r.get("notes") or []]
    return "\n".join(lines)


def cmd_import(args: argparse.Namespace) -> int:
    from studio.cli._shared import emit_json
    from studio.core.datasets.importers.pipeline import import_path
    from studio.core.datasets.importers.progress import ImportCancelled

    options = _options(args)
    bar = StderrProgress(args.quiet, lines=False)  # off a terminal an error is the only line
    try:
        report = import_path(args.path, options, bar)
    except KeyboardInterrupt:
        raise ImportCancelled() from None
    except (OSError, ValueError, MemoryError) as err:  # not a StudioError: still one line for a person
        raise DataError(f"importing {args.path} failed: {type(err).__name__}: {err}") from None
    finally:
        bar.close()
    if args.json:
        emit_json(report)
    else:
        print(summary_text(report))
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    from studio.cli._shared import emit_json
    from studio.core.datasets import cache
    from studio.core.datasets.known import KNOWN

    entries = cache.entries()
    if args.json:
        emit_json({"cache": str(cache.root(create=False)), "datasets": entries,
                   "catalog": {name: any(m["name"] == name for m in entries) for name in KNOWN}})
        return 0
    for m in entries:
        if m.get("kind") == "text":
            print(f"{m['name']:<22} {'text':<8} {m['num_samples']:>8,} lines  {m.get('source', '')}")
            continue
        c, h, w = m["shape"]
        print(f"{m['name']:<22} {m['kind']:<8} {m['num_samples']:>8,} × {c}×{h}×{w}  {m['num_classes']} classes  "
              f"{m.get('source', '')}")
    missing = [name for name in KNOWN if not any(m["name"] == name for m in entries)]
    if missing:
        print(f"not yet fetched: {', '.join(missing)} (studio data fetch NAME)")
    return 0


def cmd_fetch(args: argparse.Namespace) -> int:
    from studio.cli._shared import emit_json
    from studio.core.datasets.torchvision_catalog import ensure

    bar = StderrProgress(lines=False)
    try:
        report = ensure(args.name, bar)
    finally:
        bar.close()
    if args.json:
        emit_json(report)
    else:
        print(summary_text({"cached": True, **report}))
    return 0


def cmd_remove(args: argparse.Namespace) -> int:
    from studio.core.datasets import cache

    cache.remove(args.name)
    print(f"removed {args.name} from the cache", file=sys.stderr)
    return 0


def add_parser(sub: Any) -> None:
    from studio.core.datasets.known import KNOWN

    data = sub.add_parser("data", help="import, list, fetch and remove datasets")
    dsub = data.add_subparsers(dest="data_command", required=True)
    imp = dsub.add_parser("import", help="import a folder of class folders, a zip/tar.gz, CSV, NPZ/NPY or IDX "
                          "files, or text (.txt one line per sample, or a CSV text column; a CSV with a text and a "
                          "label column is labelled text for bert_classifier)")
    imp.add_argument("path", help="the file or folder to import")
    imp.add_argument("--name", help="the dataset's name in the registry (default: from the source)")
    add_output_args(imp, quiet=True, what="the report")
    imp.add_argument("--size", metavar="H,W", help="image size (default: the most common, at most 224 a side)")
    imp.add_argument("--channels", type=int, choices=(1, 3), help="1 (grey) or 3 (colour); default: from the images")
    imp.add_argument("--label-column", metavar="NAME", help="CSV: the label column (default: label, class, target, y, "
                     "category); with a text column the CSV is labelled text")
    imp.add_argument("--shape", metavar="C,H,W", help="CSV/NPZ with flat pixels: the image shape (default: square)")
    imp.add_argument("--x-key", metavar="NAME", help="NPZ: the array holding the images")
    imp.add_argument("--y-key", metavar="NAME", help="NPZ: the array holding the labels")
    imp.add_argument("--text-column", metavar="NAME", help="CSV of text (one sample per row): the column holding "
                     "it (default: text, headline, title, sentence, line or content); a .txt is one line per sample")
    imp.set_defaults(func=cmd_import)
    lst = dsub.add_parser("list", help="list the datasets in the cache")
    add_output_args(lst, what="the cache's datasets")
    lst.set_defaults(func=cmd_list)
    fetch = dsub.add_parser("fetch", help="put a classic dataset in the cache (local files or a download)")
    fetch.add_argument("name", choices=list(KNOWN))
    add_output_args(fetch, what="the report")
    fetch.set_defaults(func=cmd_fetch)
    rm = dsub.add_parser("remove", help="delete a dataset from the cache")
    rm.add_argument("name")
    rm.set_defaults(func=cmd_remove)
