"""Read IDX files (the MNIST family's format), raw or gzip-compressed, with numpy."""

from __future__ import annotations

import gzip
import math
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from studio.core.errors import DataError

MAX_BYTES = 64 << 30  # the largest IDX body read (EMNIST's largest file is under 1 GB)
_DTYPES: dict[int, np.dtype] = {0x08: np.dtype(np.uint8), 0x09: np.dtype(np.int8), 0x0B: np.dtype(">i2"),
                                0x0C: np.dtype(">i4"), 0x0D: np.dtype(">f4"), 0x0E: np.dtype(">f8")}


def _read_up_to(fh: Any, size: int, block: int = 1 << 24) -> bytes:
    """At most ``size`` bytes, read a block at a time: memory follows what the file holds, not what its header
    claims (``read(size)`` allocates ``size`` bytes first)."""
    out = bytearray()
    while len(out) < size:
        chunk = fh.read(min(block, size - len(out)))
        if not chunk:
            break
        out += chunk
    return bytes(out)


def read_idx(path: str | Path) -> np.ndarray:
    """Return the array stored in an IDX file; DataError for a bad magic number or a short body. Only the bytes the
    header declares are read (a gzip that inflates past them is not inflated further), and a declared size is
    multiplied out exactly (numpy's int64 product wraps: 2²⁴ × 3·2²⁵ × 2²⁶ values came out as 0)."""
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rb") as fh:
            head = fh.read(4)
            if len(head) < 4 or head[0] != 0 or head[1] != 0 or head[2] not in _DTYPES:
                raise DataError(f"{path.name} is not an IDX file (wrong magic number)")
            dtype, ndim = _DTYPES[head[2]], head[3]
            dims = fh.read(4 * ndim)
            if len(dims) < 4 * ndim:
                raise DataError(f"{path.name} is truncated (its header is incomplete)")
            shape = tuple(int.from_bytes(dims[4 * i: 4 + 4 * i], "big") for i in range(ndim))
            if not shape:
                raise DataError(f"{path.name} declares an array of no dimensions: it holds no samples")
            if 0 in shape:  # numpy cannot even shape an empty array whose other sizes overflow its index
                raise DataError(f"{path.name} declares an array of shape {shape}: it holds no values")
            count = math.prod(shape)
            want = count * dtype.itemsize
            body = _read_up_to(fh, want) if want <= MAX_BYTES else b""
    except (OSError, EOFError, zlib.error) as err:
        raise DataError(f"{path.name} cannot be read as IDX: {err}") from None
    if want > MAX_BYTES:
        raise DataError(f"{path.name} declares {count:,} values of shape {shape} ({want / 2**30:,.0f} GB); Studio "
                        f"reads IDX files up to {MAX_BYTES // 2**30} GB")
    if len(body) < want:
        raise DataError(
            f"{path.name} is truncated: the header promises {count} values of shape {shape}, "
            f"the body holds {len(body) // dtype.itemsize}"
        )
    return np.frombuffer(body, dtype=dtype, count=count).reshape(shape).astype(dtype.newbyteorder("="))
