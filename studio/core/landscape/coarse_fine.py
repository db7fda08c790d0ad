"""A 2-D surface computed coarse-to-fine: a small preview grid first (the shape in seconds), then the full
grid in blocks of rows, each reported as it completes (on the preview, upsampled, where rows are still missing).

The full grid is evaluated exactly as :func:`surface.surface_2d` would (same directions, same points); the
preview costs ``(preview / resolution)²`` extra (7 % for 11 of 41 points per axis), less when it is evaluated on
the first ``preview_samples`` samples only (the shape in a quarter of the time: the landscape's first frame).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from torch import nn

from studio.core.landscape import surface
from studio.core.landscape.directions import Params

Frame = Callable[[dict[str, Any]], None]
PREVIEW = 11  # points per axis of the preview
FRAMES = 10  # blocks of rows the refinement is reported in


def preview_indices(n: int, preview: int = PREVIEW) -> np.ndarray:
    """Evenly spread indices into an axis of ``n`` points, ends included (at most ``preview`` of them)."""
    return np.unique(np.round(np.linspace(0, n - 1, max(2, min(preview, n)))).astype(int))


def upsample(xs_c: np.ndarray, ys_c: np.ndarray, values: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """Bilinear interpolation of ``values`` (len(ys_c), len(xs_c)) onto the grid ``ys`` × ``xs``."""
    along_x = np.stack([np.interp(xs, xs_c, row) for row in values])  # (len(ys_c), len(xs))
    return np.stack([np.interp(ys, ys_c, col) for col in along_x.T], axis=1)


def surface_2d_coarse_to_fine(model: nn.Module, center: Params, d1: Params, d2: Params,
                              x: torch.Tensor, y: torch.Tensor, xs: np.ndarray, ys: np.ndarray,
                              on_frame: Frame | None = None, preview: int = PREVIEW, frames: int = FRAMES,
                              progress: surface.Progress | None = None, fast: bool = True,
                              preview_samples: int = 0, **kwargs: Any) -> dict[str, np.ndarray]:
    """Loss and accuracy on ``center + a·d1 + b·d2`` (arrays (len(ys), len(xs))), like ``surface_2d``.

    ``on_frame`` gets ``{"stage": "preview", "xs", "ys", "loss", "acc"}`` (the coarse grid) first, then
    ``{"stage": "refine", "xs", "ys", "loss", "acc", "rows_done", "rows"}`` after each block of rows: the full
    grid, its rows below ``rows_done`` computed and the rest upsampled from the preview. ``preview_samples`` > 0
    evaluates the preview on ``x[:preview_samples]`` only (its frame says ``"samples"``); the grid uses all of x.
    """
    xs, ys = np.asarray(xs, dtype=np.float64), np.asarray(ys, dtype=np.float64)
    ix, iy = preview_indices(len(xs), preview), preview_indices(len(ys), preview)
    xs_c, ys_c = xs[ix], ys[iy]
    n_coarse, n_fine = len(ix) * len(iy), len(xs) * len(ys)
    total = n_coarse + n_fine

    def steps(offset: int, size: int) -> surface.Progress | None:  # the evaluators count in their own units
        return None if progress is None else (lambda done, n: progress(offset + size * done // max(n, 1), total))

    n = min(preview_samples, len(y)) if preview_samples > 0 else len(y)
    coarse = surface.surface_2d(model, center, d1, d2, x[:n], y[:n], xs_c, ys_c, fast=fast,
                                progress=steps(0, n_coarse), **kwargs)
    if on_frame:
        on_frame({"stage": "preview", "xs": xs_c, "ys": ys_c, "loss": coarse["loss"], "acc": coarse["acc"],
                  "samples": n})
    loss = upsample(xs_c, ys_c, coarse["loss"], xs, ys)
    acc = upsample(xs_c, ys_c, coarse["acc"], xs, ys)
    block = max(1, math.ceil(len(ys) / max(1, frames)))
    for r0 in range(0, len(ys), block):
        r1 = min(len(ys), r0 + block)
        rows = surface.surface_2d(model, center, d1, d2, x, y, xs, ys[r0:r1], fast=fast,
                                  progress=steps(n_coarse + r0 * len(xs), (r1 - r0) * len(xs)),
                                  **kwargs)
        loss[r0:r1], acc[r0:r1] = rows["loss"], rows["acc"]
        if on_frame:
            on_frame({"stage": "refine", "xs": xs, "ys": ys, "loss": loss.copy(), "acc": acc.copy(),
                      "rows_done": r1, "rows": len(ys)})
    return {"loss": loss, "acc": acc}
