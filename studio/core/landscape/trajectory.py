"""The optimizer's path in the plane of its two main directions (Li et al. 2018, §7).

Stack the differences ``θ_i − θ_final`` of the saved checkpoints, take the two leading principal
components (PCA, centred as in the paper's scikit-learn code), and project every checkpoint on them:
the final weights sit at the origin and each axis carries its share of the explained variance.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from studio.core.errors import DataError
from studio.core.landscape.directions import Params, flatten, unflatten, without_bias_bn


@dataclass
class PCAPlane:
    """Two unit directions in weight space, the projected path and the explained variance ratios."""

    directions: list[Params]
    path: np.ndarray  # (T, 2): each checkpoint's coordinates, the final one at (0, 0)
    explained_variance: np.ndarray  # (2,): the share of the variance along each direction
    centered: bool


def pca_plane(checkpoints: list[Params], final: Params, include_bias_bn: bool = False) -> PCAPlane:
    """PCA of ``checkpoints[i] − final``; ``checkpoints`` in path order (the final one may be included).

    Needs at least two checkpoints that differ from the final weights. With only two the differences
    are not centred (centring would leave one direction).
    """
    names = list(final)
    diffs = []
    for ckpt in checkpoints:
        d = {n: ckpt[n].float() - final[n].float() for n in names}
        diffs.append(flatten(d if include_bias_bn else without_bias_bn(d), names).cpu())
    matrix = torch.stack(diffs).double()  # (T, D)
    moving = matrix[matrix.abs().amax(dim=1) > 0]
    if len(moving) < 2:
        raise DataError(
            "a trajectory needs at least two saved points besides the final weights: train at least 2 epochs "
            "(runs keep weight snapshots unless train.trajectory_snapshots is off), or set "
            "train.checkpoint_every=1"
        )
    centered = len(moving) >= 3
    fit = moving - moving.mean(dim=0, keepdim=True) if centered else moving
    _, s, vh = torch.linalg.svd(fit, full_matrices=False)
    var = s**2
    ratio = (var[:2] / var.sum()).numpy()
    axes = vh[:2]  # unit rows
    path = (matrix @ axes.T).numpy()  # projections of the uncentred differences (final → origin)
    like = {n: final[n] for n in names}
    dirs = [{n: t.to(final[n].device, final[n].dtype) for n, t in unflatten(a.float(), _cpu(like)).items()}
            for a in axes]
    return PCAPlane(dirs, path, ratio, centered)


def _cpu(params: Params) -> Params:
    return {n: t.detach().cpu() for n, t in params.items()}


def path_range(path: np.ndarray, margin: float = 0.25) -> tuple[tuple[float, float], tuple[float, float]]:
    """Axis ranges that hold the whole path (and the origin) with a margin on every side."""
    lo = np.minimum(path.min(axis=0), 0.0)
    hi = np.maximum(path.max(axis=0), 0.0)
    pad = np.maximum((hi - lo) * margin, 1e-3)
    return (float(lo[0] - pad[0]), float(hi[0] + pad[0])), (float(lo[1] - pad[1]), float(hi[1] + pad[1]))
