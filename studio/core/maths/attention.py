"""Attention maths for the Attention view, numpy only: attention rollout and a 2-D PCA projection."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def rollout(layers: Sequence[np.ndarray], residual: float = 0.5) -> np.ndarray:
    """Attention rollout (Abnar & Zuidema 2020): how much each output token draws on each input token through
    all layers. Per layer the heads are averaged, the residual connection is added as ``residual·I +
    (1 − residual)·A`` and rows are renormalised; the layers multiply, last on the left:
    ``R = Â_L ⋯ Â_1``. ``layers``: one ``(heads, T, T)`` array per layer, first to last. Rows of R sum to 1."""
    result: np.ndarray | None = None
    for maps in layers:
        a = np.asarray(maps, np.float64).mean(axis=0)
        a = residual * np.eye(len(a)) + (1.0 - residual) * a
        a = a / a.sum(axis=-1, keepdims=True)
        result = a if result is None else a @ result
    if result is None:
        raise ValueError("attention rollout needs at least one layer")
    return result


def pca_2d(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows of ``vectors`` (N, D) projected on their two principal components: ``(N, 2)`` coordinates and
    the share of the variance each component explains (2,). Fewer than two dimensions of spread give zeros."""
    x = np.asarray(vectors, np.float64)
    x = x - x.mean(axis=0, keepdims=True)
    if len(x) < 2:
        return np.zeros((len(x), 2)), np.zeros(2)
    _, s, vt = np.linalg.svd(x, full_matrices=False)
    comps = np.zeros((2, x.shape[1]))
    comps[: min(2, len(vt))] = vt[:2]
    total = float((s**2).sum()) or 1.0
    share = np.zeros(2)
    share[: min(2, len(s))] = (s[:2] ** 2) / total
    return x @ comps.T, share
