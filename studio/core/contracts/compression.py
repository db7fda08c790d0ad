"""Compression options, requests and results shared by the CLI, the GUI and the engine
(``engine/tasks/compression.py`` does the work).

Torch-free, so the GUI and the CLI's parser can read them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import NotRequired, TypedDict

from studio.core.contracts import layout

# ``int8``: static quantisation (calibrated activations) for models with convolutions, dynamic otherwise
QUANTIZE: tuple[str, ...] = ("none", "int8", "int8-dynamic", "int8-static")
# the sweep's target sparsities (fractions of the prunable weights set to zero)
SWEEP_SPARSITIES: tuple[float, ...] = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95)


def list_compressed(run_dir: str | Path) -> list[CompressResult]:
    """The run's saved compressions (``run_dir/compressed/<id>/summary.json``), oldest first."""
    out: list[CompressResult] = []
    for path in sorted(layout.compressed_dir(run_dir).glob(f"*/{layout.COMPRESSED_SUMMARY}")):
        try:
            out.append(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            continue
    return out


def load_sweep(run_dir: str | Path) -> SweepResult | None:
    """The run's last sparsity sweep (``run_dir/compressed/sweep.json``), or None."""
    try:
        return json.loads(layout.sweep_path(run_dir).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


@dataclass(frozen=True)
class CompressRequest:
    """Prune ``prune_amount`` of the prunable weights (``structured``: whole channels), fine-tune, quantise."""

    run_dir: str
    prune_amount: float = 0.0
    structured: bool = False
    quantize: str = "none"  # one of QUANTIZE
    fine_tune_steps: int = 0
    checkpoint: str | None = None
    save: bool = True


@dataclass(frozen=True)
class SweepRequest:
    """Test accuracy after pruning the trained weights to each of ``sparsities``."""

    run_dir: str
    sparsities: tuple[float, ...] = SWEEP_SPARSITIES
    structured: bool = False
    fine_tune_steps: int = 0
    checkpoint: str | None = None
    save: bool = True


class ParameterCount(TypedDict):
    """Parameters, non-zero parameters and the fraction of zeros among the prunable weights."""

    params: int
    nonzero_params: int
    sparsity: float


class Latency(TypedDict):
    """Median CPU milliseconds of a forward pass of one example and of a batch of 256."""

    latency_ms: float
    batch256_ms: float


class Measurement(TypedDict):
    """One model measured (a compression's ``before`` and ``after``), in this key order."""

    test_acc: float
    bytes: int
    gzip_bytes: int
    params: int
    nonzero_params: int
    sparsity: float
    latency_ms: float
    batch256_ms: float


class CompressResult(TypedDict):
    """A compression (saved as ``compressed/<id>/summary.json``; ``path`` names its folder when saved)."""

    id: str
    run_id: str
    checkpoint: str
    prune: float
    structured: bool
    fine_tune_steps: int
    quantize: str
    method: str | None  # "dynamic" or "static" when quantised
    model: str
    before: Measurement
    after: Measurement
    size_ratio: float
    accuracy_change: float
    seconds: float
    path: NotRequired[str]


class SweepPoint(TypedDict):
    target: float  # the sparsity asked for
    sparsity: float  # the sparsity reached
    test_acc: float


class SweepResult(TypedDict):
    """A sparsity sweep (saved as ``compressed/sweep.json``; ``path`` names it when saved)."""

    run_id: str
    checkpoint: str
    structured: bool
    fine_tune_steps: int
    model: str
    points: list[SweepPoint]
    seconds: float
    path: NotRequired[str]
