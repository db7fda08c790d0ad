"""Evaluate a saved run on one of its splits: what the CLI and the background job run.

The run's model, checkpoint and data come from ``engine/replay.py`` (the trainer's own builders,
so the split and the normalisation are exactly those of training); the maths is ``core/maths/evaluation.py``.
The result is saved under ``run_dir/evaluations/`` as ``<split>-<checkpoint>.json`` (the summary) and
``.npz`` (``probs`` (N, K) float32, ``labels`` (N,), ``mistake_images`` uint8 (M, C, H, W) of the most
confident mistakes when the data are images).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from studio.core.contracts import layout
from studio.core.contracts.evaluation import EvaluationRequest, EvaluationResult
from studio.core.errors import ConfigError
from studio.core.maths import evaluation
from studio.core.maths.objectives import IGNORE
from studio.engine.replay import CheckpointRef, RunData, resolve_checkpoint

Report = Callable[[float, str], None]
BATCH = 1024


@dataclass
class EvalResult:
    summary: EvaluationResult  # the JSON: accuracy, per_class, confusion, ece, seconds, …
    probs: np.ndarray
    labels: np.ndarray
    mistake_images: np.ndarray | None
    path: Path | None = None


def load_run(run_dir: str | Path, checkpoint: str | None = None,
             device: str = "auto") -> tuple[RunData, CheckpointRef]:
    """The run's model with ``checkpoint`` (default final) loaded, in eval mode; classification runs only."""
    data = RunData(run_dir, device)
    if not data.classification:
        raise ConfigError(f"run {data.run_id} is a regression run: evaluation and prediction need class labels")
    ref = resolve_checkpoint(run_dir, checkpoint)
    data.load_weights(ref)
    return data, ref


@torch.inference_mode()
def class_probabilities(model: torch.nn.Module, x: torch.Tensor, normalise: Callable[[torch.Tensor], torch.Tensor],
                        device: torch.device, progress: Report | None = None, text: str = "") -> np.ndarray:
    """Softmax outputs ``(N, K)`` of ``model`` on raw inputs ``x`` (normalised here, in batches)."""
    out = []
    for start in range(0, len(x), BATCH):
        batch = normalise(x[start:start + BATCH]).to(device)  # the split's statistics live on the CPU
        out.append(torch.softmax(model(batch).float(), dim=-1).cpu())  # (B, K), or (B, T, K): every position
        if progress:
            progress(min(start + BATCH, len(x)) / max(len(x), 1), text)
    if not out:
        return np.zeros((0, 0), np.float32)
    return torch.cat(out).numpy()


def evaluate_run(run_dir: str | Path, split: str = "test", checkpoint: str | None = None, device: str = "auto",
                 mistakes: int = 24, bins: int = evaluation.DEFAULT_BINS, save: bool = True,
                 progress: Report | None = None) -> EvalResult:
    """Confusion matrix, per-class scores, calibration and the most confident mistakes of the run in
    ``run_dir`` on ``split`` (train, val or test) with ``checkpoint`` (default final)."""
    if bins < 1:
        raise ConfigError("the reliability diagram needs at least one bin")
    started = time.perf_counter()
    if progress:
        progress(0.0, "loading the run")
    data, ref = load_run(run_dir, checkpoint, device)
    part = data.split(split)
    if len(part) == 0:
        raise ConfigError(f"the run's {split} split is empty; pick another split")
    probs = class_probabilities(data.model, part.x, part.normalise, data.device, progress, f"evaluating on {split}")
    labels = part.y.cpu().numpy()
    where = None
    if probs.ndim == 3:  # a prediction at every position (gpt_lm): one sample per counted token
        counted = labels != IGNORE
        where = np.argwhere(counted)  # (sequence, position) of each
        probs, labels = probs[counted], labels[counted]
    scores = evaluation.summarise(probs, labels, data.classes, bins, mistakes)
    images = part.x[[m["index"] for m in scores["mistakes"]]].cpu().numpy() if data.is_image else None
    if where is not None:  # the tokens before the mistaken one (the last 16)
        for m in scores["mistakes"]:
            seq, pos = (int(v) for v in where[m["index"]])
            m["input"] = [int(v) for v in part.x[seq, max(0, pos - 15):pos + 1]]
    elif not data.is_image:
        for m in scores["mistakes"]:
            m["input"] = [round(float(v), 5) for v in part.x[m["index"]].flatten()[:16]]
    summary: EvaluationResult = {"run_id": data.run_id, "split": split, "checkpoint": ref.label, "step": ref.step,
                                 "classes": data.classes, "device": data.device.type, **scores,
                                 "seconds": round(time.perf_counter() - started, 3)}
    result = EvalResult(summary, probs.astype(np.float32), labels, images)
    if save:
        result.path = save_result(result, run_dir)
        result.summary["path"] = str(result.path)
    if progress:
        progress(1.0, "done")
    return result


def run(request: EvaluationRequest, progress: Report | None = None) -> EvaluationResult:
    """The background task (``engine/tasks.EVALUATE``): evaluate, save, return the summary (its ``path`` names
    the saved JSON; the arrays are in the ``.npz`` beside it)."""
    return evaluate_run(request.run_dir, split=request.split, checkpoint=request.checkpoint,
                        progress=progress).summary


def save_result(result: EvalResult, run_dir: str | Path) -> Path:
    """Write ``<split>-<checkpoint>.json`` and ``.npz`` under ``run_dir/evaluations`` (temp name, then
    renamed); returns the JSON's path."""
    folder = layout.evaluations_dir(run_dir)
    folder.mkdir(parents=True, exist_ok=True)
    stem = layout.evaluation_stem(result.summary["split"], result.summary["checkpoint"])
    arrays: dict[str, np.ndarray] = {"probs": result.probs, "labels": result.labels}
    if result.mistake_images is not None:
        arrays["mistake_images"] = result.mistake_images
    npz, path = folder / f"{stem}.npz", folder / f"{stem}.json"
    with open(folder / f"{stem}.npz.part", "wb") as fh:
        np.savez_compressed(fh, **arrays)  # type: ignore[arg-type]  # the stub matches **arrays to allow_pickle
    os.replace(folder / f"{stem}.npz.part", npz)
    tmp = folder / f"{stem}.json.part"
    tmp.write_text(json.dumps(result.summary), encoding="utf-8")
    os.replace(tmp, path)
    return path
