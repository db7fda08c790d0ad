"""What the data panel shows about a dataset, without torch: shape, classes, class counts, split
sizes and a few sample images per class (read from the cache's memory-mapped arrays)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from studio.core.datasets import cache, splits
from studio.core.datasets.known import KNOWN

SAMPLES_PER_CLASS = 8
MAX_CLASSES_SHOWN = 20


@dataclass
class DatasetSummary:
    name: str
    available: bool  # False: a catalog dataset not fetched yet, or not an image dataset
    message: str = ""
    shape: list[int] = field(default_factory=list)  # [C, H, W]
    classes: list[str] = field(default_factory=list)
    counts: list[int] = field(default_factory=list)
    splits: dict[str, int] = field(default_factory=dict)
    samples: list[np.ndarray] = field(default_factory=list)  # per shown class: uint8 (k, C, H, W)
    skipped: int = 0
    notes: list[str] = field(default_factory=list)
    source: str = ""
    lines: list[str] = field(default_factory=list)  # a text corpus: its lines (then there are no images)


def _pick(y: np.ndarray, per_class: int, n_classes: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    out = []
    for c in range(min(n_classes, MAX_CLASSES_SHOWN)):
        idx = np.flatnonzero(y == c)
        out.append(np.sort(rng.choice(idx, min(per_class, len(idx)), replace=False)) if len(idx) else idx)
    return out


def _from_arrays(name: str, x: Any, y: np.ndarray, codes: np.ndarray, classes: list[str], per_class: int,
                 seed: int, **extra: Any) -> DatasetSummary:
    picks = _pick(y, per_class, len(classes), seed)
    return DatasetSummary(name, True, shape=[int(v) for v in x.shape[1:]], classes=list(classes),
                          counts=[int(v) for v in np.bincount(y, minlength=len(classes))],
                          splits=splits.sizes(codes), samples=[np.asarray(x[idx]) for idx in picks], **extra)


def summarise(name: str, params: dict[str, Any] | None = None, val_fraction: float = 0.1,
              per_class: int = SAMPLES_PER_CLASS, seed: int = 0) -> DatasetSummary:
    """The summary of dataset ``name`` with its ``[data]`` parameters; ``val_fraction`` is
    train.val_fraction (used by datasets outside the cache)."""
    params = params or {}
    manifest = cache.manifest(name)
    from studio.core.datasets.text import store as text_store

    if name == text_store.BUNDLED or (manifest or {}).get("kind") == text_store.KIND:
        lines = text_store.corpus_lines(name)
        return DatasetSummary(name, False, text_store.preview(name, lines=lines), lines=lines)
    from studio.core.datasets.text import labelled

    if name == "masked_lm" or labelled.is_labelled(name):
        text, data = labelled.preview(name, params)
        if data is None:
            return DatasetSummary(name, False, text)
        counts = labelled.class_counts(data.labels, len(data.classes))
        return DatasetSummary(name, False, text, classes=data.classes, counts=counts,
                              lines=[f"[{data.classes[y]}] {line}" for line, y in zip(data.lines, data.labels,
                                                                                     strict=True)])
    if manifest is not None:
        arrays = cache.load_arrays(name, mmap=True)
        y = np.asarray(arrays["y"]).astype(np.int64)
        codes = splits.assign(y, np.asarray(arrays["split"]), float(params.get("val_fraction", splits.DEFAULT_VAL)),
                              float(params.get("test_fraction", splits.DEFAULT_TEST)))
        return _from_arrays(name, arrays["x"], y, codes, manifest["classes"], per_class, seed,
                            skipped=int(manifest.get("skipped", 0)), notes=list(manifest.get("notes", [])),
                            source=str(manifest.get("source", "")),
                            message=manifest.get("description", ""))
    if name in KNOWN:
        return DatasetSummary(name, False, f"{KNOWN[name].title} is not on this machine yet: fetch it (a download, "
                                           "or Debian's package when installed), or drop its files on the window.")
    if name == "fashion_mnist_small":
        from studio.core.host.paths import resource

        with np.load(resource("data", "fashion_mnist_small.npz")) as npz:
            x = np.concatenate([npz["x_train"], npz["x_test"]])[:, None]
            y = np.concatenate([npz["y_train"], npz["y_test"]]).astype(np.int64)
            n_train = len(npz["y_train"])
            classes = [str(c) for c in npz["classes"]]
        source = np.where(np.arange(len(y)) < n_train, splits.TRAIN, splits.TEST).astype(np.uint8)
        codes = splits.assign(y, source, val_fraction, 0.0)
        return _from_arrays(name, x, y, codes, classes, per_class, seed, source="bundled with Studio",
                            message="the Fashion-MNIST subset bundled with Studio")
    return DatasetSummary(name, False, f"{name} is not an image dataset: it has no images to preview.")
