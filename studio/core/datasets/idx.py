"""Read IDX files (the MNIST family's format), raw or gzip-compressed, with numpy."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np

from studio.core.errors import DataError

_DTYPES: dict[int, np.dtype] = {0x08: np.dtype(np.uint8), 0x09: np.dtype(np.int8), 0x0B: np.dtype(">i2"),
                                0x0C: np.dtype(">i4"), 0x0D: np.dtype(">f4"), 0x0E: np.dtype(">f8")}


def read_idx(path: str | Path) -> np.ndarray:
    """Return the array stored in an IDX file; DataError for a bad magic number or a short body."""
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rb") as fh:
            raw = fh.read()
    except (OSError, EOFError) as err:
        raise DataError(f"{path.name} cannot be read as IDX: {err}") from None
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0 or raw[2] not in _DTYPES:
        raise DataError(f"{path.name} is not an IDX file (wrong magic number)")
    dtype, ndim = _DTYPES[raw[2]], raw[3]
    header = 4 + 4 * ndim
    if len(raw) < header:
        raise DataError(f"{path.name} is truncated (its header is incomplete)")
    shape = tuple(int.from_bytes(raw[4 + 4 * i: 8 + 4 * i], "big") for i in range(ndim))
    count = int(np.prod(shape)) if shape else 0
    if len(raw) - header < count * dtype.itemsize:
        raise DataError(
            f"{path.name} is truncated: the header promises {count} values of shape {shape}, "
            f"the body holds {(len(raw) - header) // dtype.itemsize}"
        )
    return np.frombuffer(raw, dtype=dtype, count=count, offset=header).reshape(shape).astype(dtype.newbyteorder("="))
