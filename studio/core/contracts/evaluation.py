"""Evaluation and prediction of a finished run: the requests the GUI builds and the results the engine returns
(``engine/tasks/evaluation.py``, ``engine/tasks/predict.py``). Torch-free."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypedDict

SPLITS: tuple[str, ...] = ("test", "val", "train")
TOP_K = 3  # predictions: classes shown per input


@dataclass(frozen=True)
class EvaluationRequest:
    """Evaluate ``run_dir`` at ``checkpoint`` (None or "final": the final weights; a step number) on ``split``."""

    run_dir: str
    split: str = "test"
    checkpoint: str | None = None


class EvaluationResult(TypedDict, total=False):
    """The saved evaluation's summary (``path`` names its JSON; the arrays are in the ``.npz`` beside it)."""

    path: str
    run_id: str
    checkpoint: str
    split: str
    examples: int
    accuracy: float
    ece: float
    classes: list[str]
    confusion: list[list[int]]
    per_class: list[dict[str, Any]]
    reliability: dict[str, Any]
    mistakes: list[dict[str, Any]]
    seconds: float


@dataclass(frozen=True)
class PredictRequest:
    """Top-``top`` classes for every image, folder of images or CSV file in ``paths``."""

    run_dir: str
    paths: tuple[str, ...]
    top: int = TOP_K
    checkpoint: str | None = None
    device: str = "auto"


class Prediction(TypedDict):
    input: str
    predicted: str
    probability: float
    top: list[dict[str, Any]]  # [{"class", "probability"}, …]


class PredictResult(TypedDict):
    run_id: str
    checkpoint: str
    predictions: list[Prediction]
    seconds: float
