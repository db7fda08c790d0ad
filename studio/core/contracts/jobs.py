"""Small background tasks of the GUI: a teaching demo (``engine/tasks/demo.py``), a model summary
(``engine/tasks/summary.py``) and the data jobs (``engine/tasks/data_import.py``: import, catalog fetch,
augmentation preview). Requests and results, torch-free."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypedDict


@dataclass(frozen=True)
class DemoRequest:
    """Run demo ``name`` of the DEMOS registry with ``params`` (checked against its parameters in the child)."""

    name: str
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SummaryRequest:
    """Layers, shapes, parameters and FLOPs of the model of ``config`` (``RunConfig.to_dict``)."""

    config: dict[str, Any] = field(default_factory=dict)


class SummaryResult(TypedDict, total=False):
    model: str
    dataset: str
    input_shape: list[int]
    output_shape: list[int]
    total_params: int
    trainable_params: int
    flops_per_sample: int
    layers: list[dict[str, Any]]  # [{"name", "type", "output_shape", "params", "flops"}]


@dataclass(frozen=True)
class ImportRequest:
    """Import ``path`` into the dataset cache (``options``: ImportOptions fields)."""

    path: str
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class FetchRequest:
    """Put catalog dataset ``name`` in the cache (local files or a download)."""

    name: str


@dataclass(frozen=True)
class PreviewRequest:
    """``count`` training images of dataset ``name`` after its augmentation ``params`` (seeded)."""

    name: str
    params: dict[str, Any] = field(default_factory=dict)
    count: int = 16
    seed: int = 0


ImportResult = dict[str, Any]  # the import's report (core/datasets/importers/result.py)
PreviewResult = dict[str, Any]  # {"images", …} (engine/training/augment.preview)
DemoResult = dict[str, Any]  # the demo's own result (core/demos)
