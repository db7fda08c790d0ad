"""Importing labelled text with many classes (issue 39.4): ``studio data import`` of a CSV with K classes of two
lines each, as it runs now, beside the per-class counting it replaced (a scan of every label per class: O(N·K)),
measured in the same run on the same labels. The machine's load average is printed with the figures.

Run: ``python -m pytest tests/benchmarks/test_many_classes_import.py -m benchmark -s``
"""

from __future__ import annotations

import os
import time
from types import SimpleNamespace

import numpy as np
import pytest


def per_class_as_it_was(labels: list[int], classes: int) -> list[int]:
    """The counting the import did before (three times: the reader, the manifest and the preview)."""
    y = np.asarray(labels)
    counts = [int((y == c).sum()) for c in range(classes)]
    return [labels.count(c) for c in range(classes)] if counts else counts


@pytest.mark.benchmark
@pytest.mark.parametrize("classes", [3_000, 10_000, 30_000])
def test_import_time_against_the_number_of_classes(tmp_path, classes):
    from studio.core.datasets.text.labelled import class_counts, import_labelled, read_labelled

    path = tmp_path / "many.csv"
    path.write_text("text,label\n" + "".join(f"line {i} of the corpus,class{i % classes}\n"
                                             for i in range(2 * classes)))
    progress = SimpleNamespace(stage=lambda *a, **k: None, check=lambda: None, finish=lambda: None)
    options = SimpleNamespace(text_column=None, label_column=None, name=f"many{classes}")
    t = time.perf_counter()
    report = import_labelled(path, options, progress)
    now = time.perf_counter() - t
    assert report["num_classes"] == classes
    labels = read_labelled(path).labels
    t = time.perf_counter()
    before = per_class_as_it_was(labels, classes)
    baseline = time.perf_counter() - t
    assert before == class_counts(labels, classes)
    print(f"\n{classes:,} classes: the whole import now {now:.2f} s; the per-class counting it replaced alone "
          f"{baseline:.2f} s ({baseline / now:.0f}× the whole import); load average {os.getloadavg()[0]:.1f}")
