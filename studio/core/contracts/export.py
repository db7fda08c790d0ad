"""Exports of a run (TensorBoard event files, the trained model) as background tasks: requests and results
(``engine/tasks/export.py``). Torch-free."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

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


@dataclass(frozen=True)
class ModelExportRequest:
    """Write the model of ``run_dir`` (at ``checkpoint``) to ``out`` as ``fmt`` (one of ``MODEL_FORMATS``)."""

    run_dir: str
    out: str
    fmt: str = "export"
    checkpoint: str | None = None


class ModelExportResult(TypedDict, total=False):
    path: str
    config_path: str
    format: str
    bytes: int
    seconds: float
