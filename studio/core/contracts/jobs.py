"""Small background tasks of the GUI: a teaching demo (``engine/tasks/demo.py``), a model summary
(``engine/tasks/summary.py``) and the data jobs (``engine/tasks/data_import.py``: import, catalog fetch,
augmentation preview). Requests and results, torch-free."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypedDict


@dataclass(frozen=True)
class DemoRequest:
    """Run demo ``name`` of the DEMOS registry with ``params`` (checked against its parameters in the child).

    ``live``: a demo tagged "steerable" runs live — it trains until stopped, paced, and takes parameter changes
    from the view while it runs (``core/demos/live.py``); otherwise the fixed run the CLI prints."""

    name: str
    params: dict[str, Any] = field(default_factory=dict)
    live: bool = False


@dataclass(frozen=True)
class SummaryRequest:
    """Layers, shapes, parameters and FLOPs of the model of ``config`` (``RunConfig.to_dict``)."""

    config: dict[str, Any] = field(default_factory=dict)


class LayerSummary(TypedDict):
    """One leaf module, in call order: its output shape (without the batch), parameters and FLOPs per sample."""

    name: str
    type: str
    output_shape: list[int]
    params: int
    trainable: int
    flops: int


class ModelSummary(TypedDict):
    """``core/models/summary.summarize``: the layers and the totals."""

    layers: list[LayerSummary]
    total_params: int
    trainable_params: int
    n_params_non_embedding: int  # Kaplan et al.'s N: outside the token/position embeddings
    flops_per_sample: int
    input_shape: list[int]
    output_shape: list[int]


class MemoryRow(TypedDict):
    """One line of the memory view (``core/estimates/memory.py``): bytes computed from shapes and measured on a step."""

    item: str
    computed: int | None  # None where no formula is known
    measured: int | None  # None where it cannot be measured here
    how: str  # how the measured figure was taken


class MemoryView(TypedDict):
    """Parameters, gradients, optimizer state and one micro-batch's activations, for the configured training."""

    rows: list[MemoryRow]
    micro_batch: int
    accumulate_steps: int
    processes: int
    precision: str
    optimizer: str
    device: str


class SummaryResult(ModelSummary):
    """``summarize_config``: the model and dataset names first, then the summary."""

    model: str
    dataset: str


class SummaryWithMemory(SummaryResult, total=False):
    """``summarize_config(memory=True)`` (the GUI's summary job, ``studio model summary --memory``): also the memory
    view."""

    memory: MemoryView


@dataclass(frozen=True)
class ImportRequest:
    """Import ``path`` into the dataset cache (``options``: ImportOptions fields)."""

    path: str
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class LogImportRequest:
    """Import the TensorBoard logs under ``logdir`` as runs of the run store at ``home``
    (``core/runs/tensorboard_import.py``)."""

    logdir: str
    home: str


class LogImportResult(TypedDict):
    """What a TensorBoard import did: run ids made and already there, files skipped or read up to their damage,
    and the report's sentence."""

    imported: list[str]
    unchanged: list[str]
    foreign: list[str]
    truncated: list[str]
    line: str


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


class ImportReport(TypedDict, total=False):
    """An import's report (``core/datasets/importers/pipeline.report``; a text corpus's from
    ``core/datasets/text/text_import.report`` has ``words`` and no classes). A value the manifest lacks is None. A
    catalog dataset found in the cache reports its whole manifest (these keys and the cache's own)."""

    name: str
    kind: str  # "imported", "catalog", "text", …
    num_samples: int
    words: int | None  # text
    num_classes: int
    classes: list[str]
    shape: list[int]  # [C, H, W]
    splits: dict[str, int]  # {"train", "val", "test"}: examples
    source_splits: dict[str, int] | None
    class_counts: list[int] | None
    skipped: int | None
    skipped_examples: list[str] | None
    notes: list[str] | None
    source: str | None
    description: str | None
    cached: bool


class PreviewResult(TypedDict):
    """Training images before and after augmentation (uint8 numpy arrays (N, C, H, W)), their labels and the
    class names (``engine/training/augment.preview``; pickled to the GUI, never JSON)."""

    before: Any
    after: Any
    labels: Any
    classes: list[str]


ImportResult = ImportReport  # an import's or a catalog fetch's result
DemoResult = dict[str, Any]  # free-form: each demo returns its own keys (core/demos)
