"""Exports of a run (TensorBoard event files, the trained model) as background tasks: requests and results
(``engine/tasks/export.py``). Torch-free."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypedDict

MODEL_FORMATS: tuple[str, ...] = ("torchscript", "export")


@dataclass(frozen=True)
class TensorBoardExportRequest:
    """Write run ``run_id`` of the run store at ``home`` as TensorBoard event files under ``logdir``."""

    home: str
    run_id: str
    logdir: str


class TensorBoardExportResult(TypedDict):
    path: str
    scalars: int
    tags: list[str]
    histograms: int  # weight/gradient histograms written (tags "weights/<tensor>", "gradients/<tensor>")


@dataclass(frozen=True)
class ModelExportRequest:
    """Write the model of ``run_dir`` (at ``checkpoint``) to ``out`` as ``fmt`` (one of ``MODEL_FORMATS``)."""

    run_dir: str
    out: str
    fmt: str = "export"
    checkpoint: str | None = None


class ModelExportResult(TypedDict):
    path: str
    config_path: str  # the model card (``ModelCard``) beside the model
    format: str
    bytes: int
    checkpoint: str
    input_dtype: str  # the input's dtype a .pt2 takes ("uint8", "float32"); "any" for TorchScript
    seconds: float


class ModelCard(TypedDict):
    """``<model>.json`` beside an exported model: how to load it, what it takes and gives, and the run's config."""

    format: str
    load: str  # the Python line that loads it
    run_id: str
    checkpoint: str
    step: int
    input_shape: list[int]
    input_dtype: str  # a .pt2 takes only this dtype (torch.export fixes it; torch refuses another); TorchScript: "any"
    input: str
    output: str
    classes: list[str]
    config: dict[str, Any]  # RunConfig.to_dict(): free-form (registry parameters)


class CsvWritten(TypedDict):
    path: str
    rows: int


class PngWritten(TypedDict):
    path: str
    bytes: int


class ExportReport(TypedDict, total=False):
    """``studio export --json``: the run, a key per target asked for, and the seconds taken."""

    run_id: str
    csv: CsvWritten
    png: PngWritten
    tensorboard: TensorBoardExportResult
    recorded: str  # --record: the MP4, GIF, PNG or SVG of the curves written
    model: ModelExportResult
    seconds: float
