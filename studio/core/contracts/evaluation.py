"""Evaluation and prediction of a finished run: the requests the GUI builds and the results the engine returns
(``engine/tasks/evaluation.py``, ``engine/tasks/predict.py``). Torch-free."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NotRequired, TypedDict

SPLITS: tuple[str, ...] = ("test", "val", "train")
TOP_K = 3  # predictions: classes shown per input


@dataclass(frozen=True)
class EvaluationRequest:
    """Evaluate ``run_dir`` at ``checkpoint`` (None or "final": the final weights; a step number) on ``split``."""

    run_dir: str
    split: str = "test"
    checkpoint: str | None = None


# One class's scores (``class`` is a Python keyword, hence the functional form).
ClassScores = TypedDict("ClassScores", {"class": str, "support": int, "accuracy": float, "precision": float,
                                        "recall": float, "f1": float})


class ReliabilityBins(TypedDict):
    """The reliability diagram: per confidence bin its edges, count, mean confidence and accuracy (None: empty)."""

    edges: list[float]
    counts: list[int]
    confidence: list[float | None]
    accuracy: list[float | None]
    ece: float


class Mistake(TypedDict):
    """A confident mistake: the example's index in the split, the true and predicted class and their
    probabilities; ``input`` (tabular data): its first 16 numbers."""

    index: int
    true: str
    predicted: str
    probability: float
    true_probability: float
    input: NotRequired[list[float]]


class EvaluationScores(TypedDict):
    """What ``core/maths/evaluation.summarise`` computes from probabilities and labels."""

    examples: int
    accuracy: float
    per_class: list[ClassScores]
    confusion: list[list[int]]
    confusion_normalised: list[list[float]]
    ece: float
    reliability: ReliabilityBins
    mistakes: list[Mistake]


class EvaluationResult(TypedDict):
    """The saved evaluation's summary, in its JSON's key order (``path`` names the JSON once saved; the arrays
    are in the ``.npz`` beside it)."""

    run_id: str
    split: str
    checkpoint: str
    step: int
    classes: list[str]
    device: str
    examples: int
    accuracy: float
    per_class: list[ClassScores]
    confusion: list[list[int]]
    confusion_normalised: list[list[float]]
    ece: float
    reliability: ReliabilityBins
    mistakes: list[Mistake]
    seconds: float
    path: NotRequired[str]


@dataclass(frozen=True)
class PredictRequest:
    """Top-``top`` classes for every image, folder of images or CSV file in ``paths``."""

    run_dir: str
    paths: tuple[str, ...]
    top: int = TOP_K
    checkpoint: str | None = None
    device: str = "auto"


ClassProbability = TypedDict("ClassProbability", {"class": str, "probability": float})


class Prediction(TypedDict):
    input: str
    predicted: str
    probability: float
    top: list[ClassProbability]  # most probable first


class PredictResult(TypedDict):
    run_id: str
    checkpoint: str
    predictions: list[Prediction]
    seconds: float
