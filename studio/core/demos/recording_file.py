"""A demo's recorded result on disk (``resources/demos/<name>.npz``): what a view shows the moment it opens.

One ``.npz`` (read with ``allow_pickle=False``: nothing in it can execute) holding the result as a JSON tree whose
arrays are stored beside it, plus how it was made: the demo or lab page, its settings (the seed among them), the
Studio and PyTorch versions, the date, the seconds it took and on how many cores, and the first frames it emitted
(the cheap fingerprint ``core/demos/recorder.check`` compares a fresh run against). Torch-free and Qt-free.

Floats are kept as float32; in the result, an array of 4,096 values or more is kept as float16, or as 256 levels
when its values lie in [0, 1] (the playground's pictures of P(class 1)), which keeps every file small. A tree holds
dicts (any keys), lists, tuples, numbers, strings, None, NaN and infinities.
"""

from __future__ import annotations

import io
import json
import math
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from studio.core.errors import DataError

FORMAT = 1  # the layout of a recording file; a newer one is refused in words
TREE = "__tree__"
BIG = 4096  # float arrays of at least this many values are stored as float16
MAX_BYTES = 8 * 1024 * 1024  # a recording above this (uncompressed) is refused: resources stay small


@dataclass
class Recording:
    """``name``: a demo (``DEMOS``) or lab page (``core/demos/recordings.RECORDABLE``); ``params``: the settings it
    ran with; ``result``: what its view shows; ``frames``: the first frames it emitted; ``meta``: how it was made
    (``recorded`` ISO date, ``studio``, ``torch``, ``seconds``, ``cpu_seconds``, ``cores``, ``machine``)."""

    name: str
    params: dict[str, Any]
    result: dict[str, Any]
    frames: list[dict[str, Any]] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def date(self) -> str:
        """The day it was recorded (``YYYY-MM-DD``), or "" when unknown."""
        return str(self.meta.get("recorded", ""))[:10]


def encode(value: Any, arrays: dict[str, np.ndarray], compact: bool = True) -> Any:
    """``value`` as a JSON-able tree; each array goes into ``arrays`` under a new key the tree names. ``compact``:
    large float arrays lose precision a picture does not show (float16, or 256 levels for values in [0, 1])."""
    if isinstance(value, np.ndarray) or _is_tensor(value):
        array = np.asarray(value.detach().cpu().numpy() if _is_tensor(value) else value)
        if array.dtype.kind == "O":
            return encode(array.tolist(), arrays, compact)
        key = f"a{len(arrays)}"
        if array.dtype.kind == "f" and compact and array.size >= BIG and _unit(array):
            arrays[key] = np.rint(array * 255).astype(np.uint8)
            return {"__unit8__": key}
        if array.dtype.kind == "f":
            array = array.astype(np.float16 if compact and array.size >= BIG and _fits_half(array) else np.float32)
        arrays[key] = array
        return {"__array__": key}
    if isinstance(value, np.generic):
        return encode(value.item(), arrays, compact)
    if isinstance(value, bool) or value is None or isinstance(value, int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"__float__": repr(value)}
    if isinstance(value, dict):
        if all(isinstance(k, str) and not k.startswith("__") for k in value):
            return {k: encode(v, arrays, compact) for k, v in value.items()}
        return {"__dict__": [[encode(k, arrays, compact), encode(v, arrays, compact)] for k, v in value.items()]}
    if isinstance(value, tuple):
        return {"__tuple__": [encode(v, arrays, compact) for v in value]}
    if isinstance(value, list):
        return [encode(v, arrays, compact) for v in value]
    raise DataError(f"a recording cannot hold a {type(value).__name__}")


def decode(tree: Any, arrays: Any) -> Any:
    """The value ``encode`` wrote; float arrays come back as float64, as the demos made them (a float32 number
    overflows where a plot compares it with its float64 limits)."""
    if isinstance(tree, list):
        return [decode(v, arrays) for v in tree]
    if not isinstance(tree, dict):
        return tree
    if "__array__" in tree:
        array = arrays[tree["__array__"]]
        return array.astype(np.float64) if array.dtype.kind == "f" else array
    if "__unit8__" in tree:
        return arrays[tree["__unit8__"]].astype(np.float64) / 255
    if "__float__" in tree:
        return float(tree["__float__"])
    if "__tuple__" in tree:
        return tuple(decode(v, arrays) for v in tree["__tuple__"])
    if "__dict__" in tree:
        return {_key(decode(k, arrays)): decode(v, arrays) for k, v in tree["__dict__"]}
    return {k: decode(v, arrays) for k, v in tree.items()}


def _key(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def _is_tensor(value: Any) -> bool:
    return type(value).__module__.startswith("torch") and hasattr(value, "detach")


def _unit(array: np.ndarray) -> bool:
    return bool(np.isfinite(array).all() and array.min() >= 0.0 and array.max() <= 1.0)


def _fits_half(array: np.ndarray) -> bool:
    finite = array[np.isfinite(array)]
    return not finite.size or float(np.abs(finite).max()) < 6e4


def save(recording: Recording, path: str | Path) -> Path:
    """Write ``recording`` to ``path`` (compressed); the file appears whole or not at all."""
    data = to_bytes(recording)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(path.name + ".part")
    try:
        part.write_bytes(data)
        part.replace(path)
    finally:
        part.unlink(missing_ok=True)
    return path


def load(path: str | Path) -> Recording:
    """The recording in ``path``; a ``DataError`` in one sentence when it is damaged, too big or too new."""
    path = Path(path)
    try:
        with zipfile.ZipFile(path) as archive:
            size = sum(i.file_size for i in archive.infolist())
        if size > MAX_BYTES:
            raise DataError(f"{path.name} is too large for a recorded demo ({size / 1e6:.0f} MB)")
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
        tree = json.loads(bytes(arrays.pop(TREE)).decode("utf-8"))
    except (OSError, zipfile.BadZipFile, ValueError, KeyError, EOFError, UnicodeDecodeError) as err:
        raise DataError(f"the recorded demo {path.name} is damaged ({err.__class__.__name__}); record it again "
                        "(studio demo --record-all)") from None
    if not isinstance(tree, dict) or int(tree.get("format", 0)) > FORMAT:
        raise DataError(f"{path.name} was recorded by a newer Studio; update Studio to show it")
    try:
        return Recording(str(tree["name"]), decode(tree["params"], arrays), decode(tree["result"], arrays),
                         decode(tree.get("frames", []), arrays), decode(tree.get("meta", {}), arrays))
    except (KeyError, TypeError) as err:
        raise DataError(f"the recorded demo {path.name} is damaged (missing {err}); record it again") from None


def to_bytes(recording: Recording) -> bytes:
    """The file ``save`` writes, in memory."""
    buffer = io.BytesIO()
    arrays: dict[str, np.ndarray] = {}
    tree = {"format": FORMAT, "name": recording.name, "params": encode(recording.params, arrays),
            "meta": encode(recording.meta, arrays), "result": encode(recording.result, arrays),
            "frames": encode(recording.frames, arrays, compact=False)}
    arrays[TREE] = np.frombuffer(json.dumps(tree, separators=(",", ":")).encode("utf-8"), dtype=np.uint8)
    np.savez_compressed(buffer, **arrays)  # type: ignore[arg-type]
    return buffer.getvalue()
