"""Classify new inputs with a saved run: image files, folders of images, or CSV rows.

Inputs get the preprocessing of training: images are decoded to the run's input geometry (channels,
height, width) with the importer's decoder, then normalised with the training split's statistics by the
run's own ``DeviceData.normalise`` (``engine/replay.py`` rebuilds it). A CSV row holds one value per
input (784 for 28×28 grey images), optionally with a label column (named ``label``, ``class``, … or, without
a header, the first column of a row one value too wide).
"""

from __future__ import annotations

import csv
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from studio.core.contracts.evaluation import Prediction, PredictRequest, PredictResult
from studio.core.datasets.importers.csv_table import LABEL_NAMES
from studio.core.datasets.importers.images import Geometry, SkipImage, is_image_name, load_image
from studio.core.datasets.importers.result import to_uint8
from studio.core.errors import DataError
from studio.core.maths.evaluation import top_k
from studio.engine.tasks.evaluation import class_probabilities, load_run

CSV_SUFFIXES = (".csv", ".txt", ".tsv")


@dataclass
class Inputs:
    names: list[str]
    x: torch.Tensor  # raw: uint8 (N, C, H, W) images, or float32 (N, D) points


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def read_csv_rows(path: Path, width: int) -> tuple[list[str], np.ndarray]:
    """(a name per row, values (N, width) float32) of the CSV at ``path``; DataError naming the bad row."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as fh:
            rows = [(i, [c.strip() for c in row]) for i, row in enumerate(csv.reader(fh), 1)
                    if any(map(str.strip, row))]
    except (OSError, UnicodeDecodeError, csv.Error) as err:
        raise DataError(f"cannot read {path.name} as CSV: {err}") from None
    label_col = None
    if rows and any(_number(c) is None for c in rows[0][1]):
        header = [c.lower() for c in rows.pop(0)[1]]
        label_col = next((header.index(n) for n in LABEL_NAMES if n in header), None)
    if not rows:
        raise DataError(f"{path.name} has no rows to predict")
    names, values = [], []
    for line, row in rows:
        cells = row
        if len(row) == width + 1:
            cells = row[:label_col] + row[label_col + 1:] if label_col is not None else row[1:]
        elif len(row) != width:
            raise DataError(f"{path.name}: row {line} has {len(row)} values; this run's model takes {width} "
                            f"(one per input value), optionally plus a label column")
        numbers = [_number(c) for c in cells]
        if any(v is None for v in numbers):
            bad = next(c for c, v in zip(cells, numbers, strict=True) if v is None)
            raise DataError(f"{path.name}: row {line} holds {bad!r}, not a number")
        names.append(f"{path.name}:{line}")
        values.append(numbers)
    return names, np.asarray(values, np.float32)


def _image_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file() and is_image_name(p.name))


def load_inputs(paths: list[str | Path], input_shape: tuple[int, ...], is_image: bool) -> Inputs:
    """The files, folders and CSV files in ``paths`` as one raw batch for a model of ``input_shape``."""
    width = int(np.prod(input_shape))
    names: list[str] = []
    parts: list[np.ndarray] = []
    geometry = Geometry(*input_shape) if is_image else None
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise DataError(f"{path} does not exist")
        if path.is_dir():
            files = _image_files(path)
            if not files:
                raise DataError(f"the folder {path} holds no image files")
        elif path.suffix.lower() in CSV_SUFFIXES:
            row_names, values = read_csv_rows(path, width)
            names += row_names
            parts.append(to_uint8(values, path.name, []) if is_image else values)
            continue
        else:
            files = [path]
        if geometry is None:
            raise DataError(f"{path.name}: this run was trained on {width} numbers per example, not images; "
                            "give a CSV file with one row per example")
        for file in files:
            try:
                parts.append(load_image(str(file), geometry)[None])
            except SkipImage as err:
                raise DataError(f"{file.name} is {err}: give an image, a folder of images or a CSV file") from None
            names.append(str(file))
    x = np.concatenate([p.reshape(len(p), *input_shape) for p in parts])
    return Inputs(names, torch.from_numpy(np.ascontiguousarray(x)))


def predict(run_dir: str | Path, paths: list[str | Path], top: int = 3, checkpoint: str | None = None,
            device: str = "auto", progress: Any = None) -> PredictResult:
    """Top-``top`` classes with probabilities for every input: ``{"run_id", "checkpoint", "predictions":
    [{"input", "predicted", "probability", "top": [{"class", "probability"}, …]}], "seconds"}``."""
    if not paths:
        raise DataError("give at least one image, folder or CSV file to predict")
    started = time.perf_counter()
    if progress:
        progress(0.0, "loading the run")
    data, ref = load_run(run_dir, checkpoint, device)
    inputs = load_inputs(paths, data.input_shape, data.is_image)
    train = data.split("train")
    probs = class_probabilities(data.model, inputs.x, train.normalise, data.device)
    idx, p = top_k(probs, top)
    predictions: list[Prediction] = [
        {"input": name, "predicted": data.classes[row[0]], "probability": float(pr[0]),
         "top": [{"class": data.classes[c], "probability": float(v)} for c, v in zip(row, pr, strict=True)]}
        for name, row, pr in zip(inputs.names, idx, p, strict=True)]
    return {"run_id": data.run_id, "checkpoint": ref.label, "predictions": predictions,
            "seconds": round(time.perf_counter() - started, 3)}


def run(request: PredictRequest, progress: Any = None) -> PredictResult:
    """The background task (``engine/tasks.PREDICT``)."""
    return predict(request.run_dir, list(request.paths), request.top, request.checkpoint, request.device,
                   progress=progress)
