"""Labelled text: a CSV with a text and a label column becomes a text-classification dataset (named or detected
columns), through `studio data import`; a CSV with only a text column stays a corpus; the bundled corpus."""

from __future__ import annotations

import pytest

from studio.core.datasets.text import labelled
from studio.core.errors import DataError
from tests.conftest import last_json, run_cli

ROWS = [("the compiler crashed again", "tech"), ("vote for the senator", "politics"),
        ("my program has a bug", "tech"), ("the election was close", "politics"),
        ("", "tech"), ("reboot the server", "tech"), ("taxes and parliament", "politics")]


def _csv(path, header=("text", "label"), rows=ROWS):
    path.write_text(",".join(header) + "\n" + "".join(f'"{t}",{lab}\n' for t, lab in rows))
    return path


def test_columns_are_named_or_detected(tmp_path):
    assert labelled.columns(_csv(tmp_path / "a.csv")) == (0, 1)
    assert labelled.columns(_csv(tmp_path / "b.csv", ("topic", "body"))) is None  # no conventional names
    assert labelled.columns(tmp_path / "b.csv", "body", "topic") == (1, 0)
    assert labelled.columns(_csv(tmp_path / "c.csv", ("id", "headline"))) is None  # a plain corpus
    data = labelled.read_labelled(tmp_path / "a.csv")
    assert data.classes == ["politics", "tech"] and data.labels == [1, 0, 1, 0, 1, 0] and data.skipped == 1
    with pytest.raises(DataError, match="--text-column and --label-column"):
        labelled.read_labelled(tmp_path / "b.csv")
    one = _csv(tmp_path / "one.csv", rows=[(f"line {i}", "x") for i in range(5)] + [("y", "z")])
    with pytest.raises(DataError, match="at least 2 classes with 2\\+ lines each"):
        labelled.read_labelled(one)


def test_the_bundled_corpus_has_four_balanced_enough_classes():
    data = labelled.bundled()
    counts = [data.labels.count(c) for c in range(len(data.classes))]
    assert data.classes == ["computers", "politics", "science", "work"] and len(data.lines) > 2000
    assert min(counts) > 400 and len(set(s.lower() for s in data.lines)) == len(data.lines)


def test_cli_imports_labelled_text_with_named_columns(tmp_path):
    path = _csv(tmp_path / "topics.csv", ("topic", "body"), [(lab, t) for t, lab in ROWS])
    proc = run_cli("data", "import", str(path), "--text-column", "body", "--label-column", "topic", "--json")
    assert proc.returncode == 0, proc.stderr
    report = last_json(proc.stdout)
    assert report["kind"] == "labelled_text" and report["num_classes"] == 2 and report["num_samples"] == 6
    assert report["class_counts"] == [3, 3] and report["skipped"] == 1
    from studio.core.datasets import DATASETS
    from studio.core.datasets.bert_data import load_labelled_text

    assert "labelled" in DATASETS.get("topics").tags
    data = load_labelled_text("topics", vocab_size=50, max_len=6, val_fraction=0.0, test_fraction=0.34)
    assert data.classes == ["politics", "tech"] and len(data.y_train) + len(data.y_test) == 6
    assert (data.x_train[:, 0] == 2).all()  # [CLS] first
    bad = run_cli("data", "import", str(path), "--text-column", "body", "--label-column", "nope")
    assert bad.returncode == 2 and "has no column 'nope'; its columns are topic, body" in bad.stderr


def test_a_quoted_label_with_newlines_is_one_label_and_any_refusal_one_line(tmp_path):
    """Found by the slow fuzz run: a label cell holding a newline made the refusal that names the labels two lines."""
    path = tmp_path / "nl.csv"
    path.write_text('text,label\nhello there,"a\nb"\nhi again,"a\nb"\nthird one,c\nfourth one,c\n')
    assert labelled.read_labelled(path).classes == ["a b", "c"]
    path.write_text('TEXT,LABEL\n0,"0\n0')
    with pytest.raises(DataError) as err:
        labelled.read_labelled(path)
    assert "\n" not in str(err.value)
