"""core/maths/evaluation.py against numbers worked out by hand."""

import numpy as np
import pytest

from studio.core.maths import evaluation

CLASSES = ["a", "b", "c"]
# true labels and predicted probabilities of 6 examples (predictions: a, a, b, c, c, c)
LABELS = np.array([0, 0, 1, 1, 2, 2])
PROBS = np.array([[0.90, 0.05, 0.05],
                  [0.60, 0.30, 0.10],
                  [0.20, 0.70, 0.10],
                  [0.10, 0.35, 0.55],
                  [0.05, 0.15, 0.80],
                  [0.30, 0.30, 0.40]])


def test_confusion_matrix_rows_are_true_columns_predicted():
    confusion = evaluation.confusion_matrix(LABELS, PROBS.argmax(1), 3)
    assert confusion.tolist() == [[2, 0, 0], [0, 1, 1], [0, 0, 2]]
    assert evaluation.normalise_rows(confusion).tolist() == [[1, 0, 0], [0, 0.5, 0.5], [0, 0, 1]]
    empty_class = evaluation.confusion_matrix(np.array([0, 0]), np.array([0, 1]), 3)
    assert evaluation.normalise_rows(empty_class)[2].tolist() == [0, 0, 0]


def test_per_class_scores_by_hand():
    confusion = evaluation.confusion_matrix(LABELS, PROBS.argmax(1), 3)
    a, b, c = evaluation.per_class_scores(confusion, CLASSES)
    assert (a["precision"], a["recall"], a["f1"], a["support"]) == (1.0, 1.0, 1.0, 2)
    assert (b["precision"], b["recall"]) == (1.0, 0.5) and b["f1"] == pytest.approx(2 / 3)
    assert (c["precision"], c["recall"]) == (pytest.approx(2 / 3), 1.0) and c["f1"] == pytest.approx(0.8)
    assert b["accuracy"] == b["recall"]
    never = evaluation.per_class_scores(np.array([[1, 0], [1, 0]]), ["x", "y"])[1]
    assert never["precision"] == never["recall"] == never["f1"] == 0.0  # nothing to divide by: 0


def test_reliability_bins_and_ece_by_hand():
    conf = np.array([0.05, 0.45, 0.55, 0.95, 0.95, 1.0])
    correct = np.array([False, True, False, True, False, True])
    rel = evaluation.reliability(conf, correct, bins=2)
    assert rel.counts.tolist() == [2, 4]
    assert rel.confidence.tolist() == pytest.approx([0.25, (0.55 + 0.95 + 0.95 + 1.0) / 4])
    assert rel.accuracy.tolist() == pytest.approx([0.5, 0.5])
    # ECE = 2/6·|0.5 − 0.25| + 4/6·|0.5 − 0.8625|
    assert rel.ece == pytest.approx(2 / 6 * 0.25 + 4 / 6 * 0.3625)
    ten = evaluation.reliability(np.array([0.1, 0.2]), np.array([True, True]), bins=10)
    assert ten.counts.tolist() == [1, 1] + [0] * 8  # (lo, hi]: 0.1 falls in the first bin, 0.2 in the second
    assert np.isnan(ten.accuracy[5]) and ten.to_json()["accuracy"][5] is None


def test_confident_mistakes_and_top_k():
    assert evaluation.confident_mistakes(PROBS, LABELS, 5).tolist() == [3]
    labels = np.array([1, 1, 0, 0, 0, 0])  # wrong: 0 (0.9), 1 (0.6), 2 (0.7), 3 (0.55), 4 (0.8), 5 (0.4)
    assert evaluation.confident_mistakes(PROBS, labels, 3).tolist() == [0, 4, 2]
    idx, p = evaluation.top_k(PROBS[:2], 2)
    assert idx.tolist() == [[0, 1], [0, 1]] and p.tolist() == [[0.9, 0.05], [0.6, 0.3]]
    assert evaluation.top_k(PROBS, 10)[0].shape == (6, 3)


def test_summary_is_consistent():
    s = evaluation.summarise(PROBS, LABELS, CLASSES, bins=5, mistakes=10)
    assert s["examples"] == 6 and s["accuracy"] == pytest.approx(5 / 6)
    assert np.trace(s["confusion"]) == 5 and np.sum(s["confusion"]) == 6
    assert s["mistakes"] == [{"index": 3, "true": "b", "predicted": "c", "probability": 0.55,
                              "true_probability": 0.35}]
    assert s["ece"] == s["reliability"]["ece"]
