"""Load an imported dataset from the cache as tensors, split train/val/test (workers only: torch)."""

from __future__ import annotations

import numpy as np
import torch

from studio.core.datasets import cache, splits
from studio.core.datasets.arrays import ArrayData


def arrays_to_data(name: str, x: np.ndarray, y: np.ndarray, codes: np.ndarray, classes: list[str],
                   meta: dict, own_val: bool = True) -> ArrayData:
    """ArrayData from cached arrays and split codes; ``own_val`` False leaves the validation split to
    ``train.val_fraction`` (ArrayData.split_validation)."""
    def part(code: int) -> tuple[torch.Tensor, torch.Tensor]:
        idx = np.flatnonzero(codes == code)
        return torch.from_numpy(np.ascontiguousarray(x[idx])), torch.from_numpy(y[idx].astype(np.int64))

    (xt, yt), (xs, ys) = part(splits.TRAIN), part(splits.TEST)
    xv, yv = part(splits.VAL) if own_val else (None, None)
    return ArrayData(xt, yt, xs, ys, classes=classes, x_val=xv, y_val=yv, meta={"name": name, **meta})


def load_imported(name: str, seed: int = 0, val_fraction: float = splits.DEFAULT_VAL,
                  test_fraction: float = splits.DEFAULT_TEST) -> ArrayData:
    """The cached dataset ``name``: the source's own splits, the rest split 70/20/10 by default."""
    manifest = cache.manifest(name) or {}
    arrays = cache.load_arrays(name)
    y = arrays["y"].astype(np.int64)
    codes = splits.assign(y, arrays["split"], val_fraction, test_fraction, seed)
    return arrays_to_data(name, arrays["x"], y, codes, list(manifest.get("classes", [])),
                          {"source": manifest.get("source", ""), "skipped": manifest.get("skipped", 0)})
