"""The Fashion-MNIST subset that ships in resources/data (see resources/README.md)."""

from __future__ import annotations

import numpy as np
import torch

from studio.core.datasets.arrays import ArrayData
from studio.core.errors import DataError
from studio.core.host.paths import resource


def load_fashion_mnist_small(name: str = "fashion_mnist_small", seed: int = 0) -> ArrayData:
    """The subset as uint8 tensors (the subset is fixed: ``seed`` does not change it)."""
    path = resource("data", "fashion_mnist_small.npz")
    try:
        with np.load(path) as npz:
            arrays = {k: npz[k] for k in npz.files}
    except OSError as err:
        raise DataError(f"the bundled dataset {path} is missing or unreadable ({err}); reinstall Studio") from None

    def images(key: str) -> torch.Tensor:
        return torch.from_numpy(arrays[key]).unsqueeze(1).contiguous()  # (N, 1, 28, 28) uint8

    return ArrayData(
        images("x_train"), torch.from_numpy(arrays["y_train"].astype(np.int64)),
        images("x_test"), torch.from_numpy(arrays["y_test"].astype(np.int64)),
        classes=[str(c) for c in arrays["classes"]],
        meta={"source": "Fashion-MNIST (MIT), bundled subset"},
    )
