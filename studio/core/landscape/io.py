"""Landscape results on disk: one .npz per result under ``run_dir/landscapes/``, metadata as JSON.

Numpy only (no torch), so the GUI process can read results the background process wrote.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from studio.core.contracts import layout
from studio.core.contracts.landscape import KINDS, LandscapeStats
from studio.core.errors import DataError
from studio.core.host.outfiles import writable_folder, writing
from studio.core.vocab import LandscapeKind

LANDSCAPES_DIR = layout.LANDSCAPES


@dataclass
class Landscape:
    """A computed landscape.

    ``x`` holds the coordinates along the first axis (α for 1-D), ``y`` those along the second (2-D and
    trajectory; ``None`` for 1-D). ``values`` maps ``"<split>/loss"`` / ``"<split>/acc"`` to arrays of
    shape ``(len(x),)`` for 1-D or ``(len(y), len(x))`` (row = y) otherwise. ``path`` is the projected
    optimizer path ``(T, 2)`` for a trajectory. ``meta`` says how it was computed (checkpoint, data,
    directions, BatchNorm mode, evaluator, seconds, ...).
    """

    kind: str
    x: np.ndarray
    y: np.ndarray | None
    values: dict[str, np.ndarray]
    path: np.ndarray | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.kind = str(self.kind)  # a LandscapeKind member becomes its plain string (summaries travel to the GUI)

    @property
    def loss(self) -> np.ndarray:
        """The first split's loss (the one the landscape is about)."""
        key = next(k for k in self.values if k.endswith("/loss"))
        return self.values[key]

    def center_loss(self) -> float:
        """The loss at the reference weights: (0, 0) for 2-D and trajectory, α = 1 for 1-D."""
        if self.kind == LandscapeKind.LINE:
            return float(np.interp(1.0, self.x, self.loss))
        assert self.y is not None, f"a {self.kind} landscape has y coordinates"
        iy, ix = int(np.argmin(np.abs(self.y))), int(np.argmin(np.abs(self.x)))
        return float(self.loss[iy, ix])

    def summary(self) -> LandscapeStats:
        loss = self.loss[np.isfinite(self.loss)]
        return {
            "kind": self.kind,
            "resolution": int(len(self.x)),
            "center_loss": self.center_loss(),
            "min_loss": float(loss.min()) if loss.size else float("nan"),
            "max_loss": float(loss.max()) if loss.size else float("nan"),
        }


landscapes_dir = layout.landscapes_dir


def save(result: Landscape, run_dir: str | Path, name: str | None = None) -> Path:
    """Write ``result`` to ``run_dir/landscapes/<name>.npz`` (temp file + rename); return the path."""
    folder = writable_folder(landscapes_dir(run_dir), "the landscape")
    name = name or f"{result.kind}_{time.strftime('%Y%m%d-%H%M%S')}_{os.getpid() % 10000:04d}"
    path = folder / f"{name}.npz"
    return save_to(result, path)


def save_to(result: Landscape, path: str | Path) -> Path:
    """Write ``result`` to exactly ``path`` (temp file + rename)."""
    path = Path(path)
    arrays: dict[str, np.ndarray] = {"x": np.asarray(result.x, dtype=np.float64)}
    if result.y is not None:
        arrays["y"] = np.asarray(result.y, dtype=np.float64)
    if result.path is not None:
        arrays["path"] = np.asarray(result.path, dtype=np.float64)
    for key, value in result.values.items():
        arrays["value:" + key] = np.asarray(value, dtype=np.float64)
    meta = {"kind": result.kind, **result.meta}
    arrays["meta"] = np.array(json.dumps(meta, default=_json_default))
    with writing(path) as tmp, open(tmp, "wb") as fh:
        # numpy's stubs match **arrays against savez's allow_pickle: bool (numpy >= 2.1); no key here is that name
        np.savez(fh, **arrays)  # type: ignore[arg-type]
    return path


def load(path: str | Path) -> Landscape:
    """Read a result written by :func:`save`; a missing or foreign file raises DataError."""
    path = Path(path)
    try:
        with np.load(path, allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in npz.files}
    except (OSError, ValueError) as err:
        raise DataError(f"cannot read the landscape file {path}: {err}") from None
    if "meta" not in arrays or "x" not in arrays:
        raise DataError(f"{path} is not a Studio landscape file (no metadata)")
    meta = json.loads(str(arrays["meta"]))
    kind = meta.pop("kind", "")
    if kind not in KINDS:
        raise DataError(f"{path} holds an unknown landscape kind {kind!r}")
    values = {k.removeprefix("value:"): v for k, v in arrays.items() if k.startswith("value:")}
    return Landscape(kind, arrays["x"], arrays.get("y"), values, arrays.get("path"), meta)


def list_results(run_dir: str | Path) -> list[Path]:
    """The run's saved landscapes, oldest first."""
    folder = landscapes_dir(run_dir)
    return sorted(folder.glob("*.npz"), key=lambda p: p.stat().st_mtime) if folder.is_dir() else []


def _json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"cannot store {type(value).__name__} in landscape metadata")
