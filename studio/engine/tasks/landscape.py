"""The landscape and sharpness jobs of a run: what the CLI, the background process and the GUI run.

Each takes a run directory and a request (``core/contracts/landscape.py``: ``landscape_of``, ``sharpness_of``)
or the request's fields as keyword arguments (``compute_landscape``, ``compute_sharpness``), validates it,
reports progress as ``progress(fraction, text)`` (which may raise :class:`Cancelled`), saves its result under
``run_dir/landscapes/`` and returns it.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch

from studio.core.contracts import landscape as contract
from studio.core.contracts.landscape import LandscapeRequest, SharpnessRequest, SharpnessResult
from studio.core.contracts.progress import Cancelled  # noqa: F401 - what ``progress`` raises to stop
from studio.core.errors import ConfigError
from studio.core.host.outfiles import writable_folder, write_bytes
from studio.core.landscape import coarse_fine, curvature, io, surface
from studio.core.landscape.directions import normalized_directions
from studio.core.landscape.io import Landscape
from studio.core.landscape.trajectory import path_range, pca_plane
from studio.core.vocab import LandscapeKind, Metric, Split
from studio.engine.replay import (
    RunData,
    final_checkpoint,
    list_checkpoints,
    path_points,
    resolve_checkpoint,
)

Report = Callable[[float, str], None]

DEFAULT_RESOLUTION = {kind: contract.DEFAULT_RESOLUTION for kind in contract.KINDS}
PREVIEW_SAMPLES = contract.PREVIEW_SAMPLES


def _steps(progress: Report | None, text: str, lo: float = 0.0, hi: float = 1.0) -> surface.Progress | None:
    """A (done, total) callback that reports ``lo..hi`` of the whole job as ``text``."""
    if progress is None:
        return None
    return lambda done, total: progress(lo + (hi - lo) * done / max(total, 1), text)


def _bn_note(data: RunData, label: str) -> str:
    if not data.has_batch_norm():
        return "no BatchNorm in the model"
    return f"BatchNorm in eval mode with the running statistics of the {label} checkpoint"


def compute_landscape(run_dir: str | Path, kind: str = LandscapeKind.SURFACE, resolution: int | None = None,
                      checkpoint: str | None = None, other_run: str | Path | None = None,
                      samples: int = contract.DEFAULT_SAMPLES, split: str = "train",
                      span: float = contract.DEFAULT_SPAN, seed: int = 0, include_bias_bn: bool = False,
                      device: str = "auto", fast: bool = True,
                      save: bool = True, progress: Report | None = None, emit: coarse_fine.Frame | None = None,
                      preview_samples: int = PREVIEW_SAMPLES, threads: int = 0) -> tuple[Landscape, Path | None]:
    """``landscape_of`` with the request's fields as keyword arguments (``core/contracts/landscape.py``)."""
    request = LandscapeRequest(kind=kind, resolution=resolution, checkpoint=checkpoint,
                               other_run=None if other_run is None else str(other_run), samples=samples, split=split,
                               span=span, seed=seed, include_bias_bn=include_bias_bn, device=device, fast=fast,
                               preview_samples=preview_samples, threads=threads)
    return landscape_of(run_dir, request, save=save, progress=progress, emit=emit)


def landscape_of(run_dir: str | Path, request: LandscapeRequest, save: bool = True, progress: Report | None = None,
                 emit: coarse_fine.Frame | None = None) -> tuple[Landscape, Path | None]:
    """Compute a 1-D, 2-D or trajectory landscape of the run in ``run_dir``; save it unless ``save`` is False.

    1-D interpolates from the initial weights to ``checkpoint`` (default final), or with ``other_run``
    from this run's ``checkpoint`` (α = 0) to the other run's final weights (α = 1), on the train and test
    data. 2-D spans ``[-span, span]²`` around ``checkpoint`` along two filter-normalised random directions.
    Trajectory spans the PCA plane of the saved checkpoints around the final weights.
    With ``emit``, a 2-D or trajectory landscape is computed coarse-to-fine (``core/landscape/coarse_fine.py``):
    ``emit`` gets the preview grid (on ``preview_samples`` of the samples; 0: all), then the refined rows, each
    with the split's name and the kind (a trajectory's also with its path): the contract's ``PreviewFrame`` and
    ``RowsFrame``; the result is the same grid.
    """
    request.validate()
    if save:  # before the computation, not after it: a read-only run folder costs nothing
        writable_folder(io.landscapes_dir(run_dir), "the landscape")
    kind, resolution, samples, split, seed = request.kind, request.points, request.samples, request.split, request.seed
    include_bias_bn = request.include_bias_bn
    started = time.perf_counter()
    if progress:
        progress(0.0, "loading the run")
    data = RunData(run_dir, request.device)
    ref = resolve_checkpoint(run_dir, request.checkpoint)
    evaluate = {"fast": request.fast, **data.loss_fns()}
    meta: dict[str, Any] = {
        "run_id": data.run_id, "model": data.config.model.name, "dataset": data.config.data.name,
        "samples": _used(data, split, samples), "seed": seed, "device": str(data.device.type),
        "evaluator": "fast (vmap)" if request.fast else "sequential", "include_bias_bn": include_bias_bn,
    }
    if kind == LandscapeKind.LINE:
        result = _one_d(data, ref, request.other_run, resolution, samples, seed, evaluate, meta, progress)
    elif kind == LandscapeKind.SURFACE:
        result = _two_d(data, ref, resolution, samples, split, request.span, seed, include_bias_bn,
                        {**evaluate, "preview_samples": request.preview_samples}, meta, progress, emit)
    else:
        result = _trajectory(data, resolution, samples, split, seed, include_bias_bn,
                             {**evaluate, "preview_samples": request.preview_samples}, meta, progress, emit)
    result.meta["seconds"] = round(time.perf_counter() - started, 3)
    path = io.save(result, run_dir) if save else None
    if progress:
        progress(1.0, "done")
    return result, path


def _one_d(data: RunData, ref: Any, other_run: Any, resolution: int, samples: int, seed: int,
           evaluate: dict, meta: dict, progress: Report | None) -> Landscape:
    if other_run is not None:
        other_dir = Path(other_run)
        start = data.load_weights(ref)
        end_ref = final_checkpoint(other_dir)
        end = data.load_weights(end_ref)  # loads the other run's buffers too: BN stats of α = 1
        meta.update(start=f"{data.run_id} {ref.label}", end=f"{other_dir.name} final", other_run=str(other_dir))
        label = f"{other_dir.name} final"
    else:
        steps = list_checkpoints(data.run_dir)
        if not steps:
            raise ConfigError(f"the run in {data.run_dir} has no initial checkpoint (step 0)")
        start = data.load_weights(steps[0])
        end = data.load_weights(ref)
        meta.update(start=f"step {steps[0].step}", end=ref.label)
        label = ref.label
    note = _bn_note(data, label)
    meta.update(checkpoint=label, batch_norm=note + " (α = 1)" if data.has_batch_norm() else note)
    alphas = surface.default_alphas(resolution)
    values: dict[str, np.ndarray] = {}
    splits = (Split.TRAIN, Split.TEST)
    for i, split in enumerate(splits):
        x, y = data.eval_data(split, samples, seed)
        out = surface.interpolate_1d(data.model, start, end, x, y, alphas,
                                     progress=_steps(progress, f"{split} data", i / 2, (i + 1) / 2), **evaluate)
        values[Metric.loss(split)], values[Metric.acc(split)] = out["loss"], out["acc"]
    meta["splits"] = list(splits)
    meta["samples"] = {str(split): _used(data, split, samples) for split in splits}  # what each split gave
    return Landscape(LandscapeKind.LINE, alphas, None, values, None, meta)


def _used(data: RunData, split: str, samples: int) -> int:
    """How many examples of ``split`` an evaluation of ``samples`` uses (0, or more than the split has: all)."""
    size = data.split_size(split)
    return min(samples, size) if samples else size


def _two_d(data: RunData, ref: Any, resolution: int, samples: int, split: str, span: float, seed: int,
           include_bias_bn: bool, evaluate: dict, meta: dict, progress: Report | None,
           emit: coarse_fine.Frame | None = None) -> Landscape:
    center = data.load_weights(ref)
    d1, d2 = normalized_directions(center, 2, seed, include_bias_bn)
    x, y = data.eval_data(split, samples, seed)
    xs = ys = surface.default_grid(resolution, span)
    steps = _steps(progress, "evaluating the grid", 0.02, 0.99)
    out = _surface(data, center, d1, d2, x, y, xs, ys, steps, evaluate, emit,
                   {"split": split, "kind": LandscapeKind.SURFACE.value})
    meta.update(checkpoint=ref.label, step=ref.step, split=split, span=span,
                directions="random Gaussian, filter-normalised (Li et al. 2018)",
                batch_norm=_bn_note(data, ref.label))
    return Landscape(LandscapeKind.SURFACE, xs, ys, {Metric.loss(split): out["loss"], Metric.acc(split): out["acc"]},
                     None, meta)


def _surface(data: RunData, center: Any, d1: Any, d2: Any, x: torch.Tensor, y: torch.Tensor, xs: np.ndarray,
             ys: np.ndarray, steps: surface.Progress | None, evaluate: dict, emit: coarse_fine.Frame | None,
             frame_fields: dict[str, Any]) -> dict[str, np.ndarray]:
    """The plane's grid: in one go, or with ``emit`` coarse-to-fine (each frame with ``frame_fields``)."""
    evaluate = dict(evaluate)
    preview_samples = evaluate.pop("preview_samples", 0)
    if emit is None:
        return surface.surface_2d(data.model, center, d1, d2, x, y, xs, ys, progress=steps, **evaluate)
    return coarse_fine.surface_2d_coarse_to_fine(data.model, center, d1, d2, x, y, xs, ys,
                                                 on_frame=lambda f: emit({**f, **frame_fields}), progress=steps,
                                                 preview_samples=preview_samples, **evaluate)


def _trajectory(data: RunData, resolution: int, samples: int, split: str, seed: int, include_bias_bn: bool,
                evaluate: dict, meta: dict, progress: Report | None,
                emit: coarse_fine.Frame | None = None) -> Landscape:
    refs = path_points(data.run_dir)  # checkpoints and the run's weight snapshots
    final_ref = final_checkpoint(data.run_dir)
    if progress:
        progress(0.01, f"reading {len(refs)} checkpoints")
    path_weights = [data.load_weights(r) for r in refs]
    final = data.load_weights(final_ref)  # last: the model keeps the final BN statistics
    plane = pca_plane(path_weights, final, include_bias_bn)
    (x0, x1), (y0, y1) = path_range(plane.path)
    xs, ys = np.linspace(x0, x1, resolution), np.linspace(y0, y1, resolution)
    x, y = data.eval_data(split, samples, seed)
    ev = [float(v) for v in plane.explained_variance]
    out = _surface(data, final, plane.directions[0], plane.directions[1], x, y, xs, ys,
                   _steps(progress, "evaluating the plane", 0.05, 0.99), evaluate, emit,
                   {"split": split, "kind": LandscapeKind.TRAJECTORY.value, "path": plane.path,
                    "explained_variance": ev})
    meta.update(checkpoint="final", split=split, steps=[r.step for r in refs],
                explained_variance=ev, centered=plane.centered,
                directions="PCA of checkpoint differences to the final weights (Li et al. 2018, §7)",
                batch_norm=_bn_note(data, "final"))
    return Landscape(LandscapeKind.TRAJECTORY, xs, ys, {Metric.loss(split): out["loss"], Metric.acc(split): out["acc"]},
                     plane.path, meta)


def compute_sharpness(run_dir: str | Path, checkpoint: str | None = None, k: int = contract.DEFAULT_K,
                      samples: int = contract.DEFAULT_SHARPNESS_SAMPLES, split: str = "train",
                      trace_samples: int = contract.DEFAULT_TRACE_SAMPLES, eps: float = contract.DEFAULT_EPS,
                      eps_steps: int = 10, seed: int = 0, device: str = "auto", method: str = "lanczos",
                      save: bool = True, progress: Report | None = None, threads: int = 0) -> SharpnessResult:
    """``sharpness_of`` with the request's fields as keyword arguments (``core/contracts/landscape.py``)."""
    request = SharpnessRequest(checkpoint=checkpoint, k=k, samples=samples, split=split, trace_samples=trace_samples,
                               eps=eps, eps_steps=eps_steps, seed=seed, device=device, method=method, threads=threads)
    return sharpness_of(run_dir, request, save=save, progress=progress)


def sharpness_of(run_dir: str | Path, request: SharpnessRequest, save: bool = True,
                 progress: Report | None = None) -> SharpnessResult:
    """Top-``k`` Hessian eigenvalues, Hutchinson's trace and Keskar's ε-sharpness at ``checkpoint``."""
    request.validate()
    if save:  # before the computation: a read-only run folder is one line at once, not after the work
        writable_folder(io.landscapes_dir(run_dir), "the sharpness")
    seed = request.seed
    started = time.perf_counter()
    if progress:
        progress(0.0, "loading the run")
    data = RunData(run_dir, request.device)
    ref = resolve_checkpoint(run_dir, request.checkpoint)
    params = data.load_weights(ref)
    x, y = data.eval_data(request.split, request.samples, seed)
    loss = curvature.LossFunction(data.model, params, x, y, data.loss_fns()["loss_fn"])
    find = curvature.lanczos if request.method == "lanczos" else curvature.power_iteration
    eigs = find(loss.matvec, loss.dim, k=request.k, seed=seed, device=data.device,
                progress=_steps(progress, "top eigenvalues", 0.02, 0.45))
    trace, trace_err = curvature.hutchinson_trace(loss.matvec, loss.dim, request.trace_samples, seed, data.device,
                                                  matmat=loss.matmat, block=_probe_block(loss.dim),
                                                  progress=_steps(progress, "Hessian trace", 0.45, 0.85))
    sharp = curvature.eps_sharpness(loss, request.eps, request.eps_steps, seed,
                                    progress=_steps(progress, "ε-sharpness", 0.85, 1.0))
    result: SharpnessResult = {
        "run_id": data.run_id, "checkpoint": ref.label, "step": ref.step, "top_eigenvalues": eigs,
        "trace": trace, "trace_stderr": trace_err, "eps_sharpness": sharp["eps_sharpness"], "eps": request.eps,
        "loss": sharp["loss"], "split": request.split, "samples": len(y), "method": request.method,
        "batch_norm": _bn_note(data, ref.label), "device": data.device.type,
        "seconds": round(time.perf_counter() - started, 3),
    }
    if save:
        result["path"] = str(save_sharpness(result, run_dir))
    if progress:
        progress(1.0, "done")
    return result


def _probe_block(dim: int) -> int:
    """Hutchinson probes per vmapped pass: up to 16, fewer for big models."""
    return int(max(1, min(16, 2e8 // max(dim * 4 * 8, 1))))


def save_sharpness(result: SharpnessResult, run_dir: str | Path) -> Path:
    folder = writable_folder(io.landscapes_dir(run_dir), "the sharpness")
    path = folder / f"sharpness_{time.strftime('%Y%m%d-%H%M%S')}_{os.getpid() % 10000:04d}.json"
    write_bytes(path, json.dumps(result, indent=1).encode("utf-8"))
    return path

