"""What a classifier gets wrong: confusion matrix, per-class scores, calibration and its worst mistakes.

Pure functions of numpy arrays (labels ``(N,)`` ints, class probabilities ``(N, K)``), so the CLI, the
background job and the tests share one definition:

- the confusion matrix has the true class in rows and the predicted class in columns; normalised, each row
  is divided by its class's count (a row of zeros for a class with no examples);
- per class: ``support`` (examples of the class), ``precision`` = TP / predicted as the class, ``recall`` =
  TP / support, ``f1`` = their harmonic mean (0 when both are 0) and ``accuracy`` = the share of the class's
  examples classified correctly (Teachable Machine's per-class accuracy: the same number as recall);
  a ratio with nothing to divide by is 0;
- calibration: the predictions are binned by their confidence (the top probability) into ``bins`` equal
  widths of [0, 1]; the reliability diagram is each bin's accuracy against its mean confidence, and the
  expected calibration error is ``ECE = Σ_b |B_b|/N · |acc(B_b) − conf(B_b)|`` (Guo et al. 2017, 15 bins).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from studio.core.contracts import layout
from studio.core.contracts.evaluation import ClassScores, EvaluationResult, EvaluationScores, ReliabilityBins

DEFAULT_BINS = 15


def confusion_matrix(labels: np.ndarray, predicted: np.ndarray, num_classes: int) -> np.ndarray:
    """Counts ``(K, K)``: row = true class, column = predicted class."""
    labels, predicted = np.asarray(labels, np.int64), np.asarray(predicted, np.int64)
    flat = np.bincount(labels * num_classes + predicted, minlength=num_classes * num_classes)
    return flat.reshape(num_classes, num_classes)


def normalise_rows(confusion: np.ndarray) -> np.ndarray:
    """Each row divided by its sum (the class's count); rows without examples stay 0."""
    sums = confusion.sum(axis=1, keepdims=True)
    return np.divide(confusion, sums, out=np.zeros(confusion.shape, float), where=sums > 0)


def _ratio(a: float, b: float) -> float:
    return float(a) / float(b) if b else 0.0


def per_class_scores(confusion: np.ndarray, classes: list[str]) -> list[ClassScores]:
    """One dict per class: ``class, support, accuracy, precision, recall, f1``."""
    out: list[ClassScores] = []
    for c, name in enumerate(classes):
        tp = confusion[c, c]
        support, predicted = confusion[c].sum(), confusion[:, c].sum()
        precision, recall = _ratio(tp, predicted), _ratio(tp, support)
        f1 = _ratio(2 * precision * recall, precision + recall)
        out.append({"class": name, "support": int(support), "accuracy": recall, "precision": precision,
                    "recall": recall, "f1": f1})
    return out


@dataclass(frozen=True)
class Reliability:
    """Per confidence bin: its edges, example count, mean confidence and accuracy (NaN when empty)."""

    edges: np.ndarray
    counts: np.ndarray
    confidence: np.ndarray
    accuracy: np.ndarray
    ece: float

    def to_json(self) -> ReliabilityBins:
        def nums(a: np.ndarray) -> list[float | None]:
            return [None if not np.isfinite(v) else float(v) for v in a]

        return {"edges": [float(e) for e in self.edges], "counts": [int(c) for c in self.counts],
                "confidence": nums(self.confidence), "accuracy": nums(self.accuracy), "ece": self.ece}


def reliability(confidence: np.ndarray, correct: np.ndarray, bins: int = DEFAULT_BINS) -> Reliability:
    """Bin predictions by confidence (``(lo, hi]``, the first bin also takes 0) and compute the ECE."""
    confidence, correct = np.asarray(confidence, float), np.asarray(correct, bool)
    edges = np.linspace(0.0, 1.0, bins + 1)
    which = np.clip(np.searchsorted(edges, confidence, side="left") - 1, 0, bins - 1)
    counts = np.bincount(which, minlength=bins)
    conf_sum = np.bincount(which, weights=confidence, minlength=bins)
    acc_sum = np.bincount(which, weights=correct.astype(float), minlength=bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_conf = np.where(counts > 0, conf_sum / counts, np.nan)
        mean_acc = np.where(counts > 0, acc_sum / counts, np.nan)
    n = max(len(confidence), 1)
    ece = float(np.sum(np.abs(acc_sum - conf_sum)) / n)  # Σ |B|/N · |acc − conf| = Σ |Σcorrect − Σconf| / N
    return Reliability(edges, counts, mean_conf, mean_acc, ece)


def confident_mistakes(probs: np.ndarray, labels: np.ndarray, count: int) -> np.ndarray:
    """Indices of the ``count`` wrong predictions with the highest predicted probability, highest first."""
    predicted = probs.argmax(axis=1)
    wrong = np.flatnonzero(predicted != labels)
    order = np.argsort(-probs[wrong, predicted[wrong]], kind="stable")
    return wrong[order[:count]]


def top_k(probs: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(class indices, probabilities) of the ``k`` most probable classes of each row, most probable first."""
    k = max(1, min(k, probs.shape[1]))
    idx = np.argsort(-probs, axis=1, kind="stable")[:, :k]
    return idx, np.take_along_axis(probs, idx, axis=1)


def summarise(probs: np.ndarray, labels: np.ndarray, classes: list[str], bins: int = DEFAULT_BINS,
              mistakes: int = 24) -> EvaluationScores:
    """Everything the evaluation reports, as plain JSON-ready values: ``accuracy, per_class, confusion,
    confusion_normalised, ece, reliability, mistakes`` (each mistake: ``index, true, predicted,
    probability, true_probability``)."""
    probs, labels = np.asarray(probs), np.asarray(labels, np.int64)
    predicted = probs.argmax(axis=1)
    confusion = confusion_matrix(labels, predicted, len(classes))
    correct = predicted == labels
    rel = reliability(probs.max(axis=1), correct, bins)
    worst = confident_mistakes(probs, labels, mistakes)
    return {
        "examples": int(len(labels)),
        "accuracy": float(correct.mean()) if len(labels) else 0.0,
        "per_class": per_class_scores(confusion, classes),
        "confusion": confusion.tolist(),
        "confusion_normalised": normalise_rows(confusion).round(6).tolist(),
        "ece": rel.ece,
        "reliability": rel.to_json(),
        "mistakes": [{"index": int(i), "true": classes[labels[i]], "predicted": classes[predicted[i]],
                      "probability": float(probs[i, predicted[i]]), "true_probability": float(probs[i, labels[i]])}
                     for i in worst],
    }


result_stem = layout.evaluation_stem  # the saved evaluation's file name without suffix: ``test-final``


def load_saved(json_path: str | Path) -> tuple[EvaluationResult, dict[str, np.ndarray]]:
    """A saved evaluation (``run_dir/evaluations/<stem>.json``) and its arrays (probs, labels, mistake_images)."""
    path = Path(json_path)
    summary: EvaluationResult = json.loads(path.read_text(encoding="utf-8"))
    summary["path"] = str(path)
    arrays: dict[str, np.ndarray] = {}
    npz = path.with_suffix(".npz")
    if npz.exists():
        with np.load(npz) as data:
            arrays = {k: data[k] for k in data.files}
    return summary, arrays
