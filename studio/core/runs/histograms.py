"""Weight and gradient histograms of a run (TensorBoard's histograms/distributions): the file format and its reader.

A training run's rank 0 (``engine/callbacks/histograms.py``) appends one JSON line per parameter tensor and kind
every ``train.histogram_every`` steps to ``run_dir/histograms.jsonl`` (``layout.histograms_path``)::

    {"step": 100, "name": "layers.0.weight", "kind": "weight", "min": -0.2, "max": 0.3, "num": 100352,
     "sum": 1.5, "sum_sq": 310.2, "counts": [..BINS integers..], "shape": [128, 784]}

The ``BINS`` bins split [min, max] evenly. Lines are appended and flushed as they come, so the file is readable
while the run trains; a half-written last line is skipped. Pure Python + numpy (no torch, no Qt).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, NotRequired, TypedDict

import numpy as np

from studio.core.contracts import layout

BINS: Final = 30  # bins per histogram (TensorBoard's distributions read well with a few dozen)
KINDS: Final = ("weight", "grad")


class HistogramRecord(TypedDict):
    """One line of ``histograms.jsonl``: one tensor's values at one step."""

    step: int
    name: str
    kind: str  # "weight" or "grad"
    min: float
    max: float
    num: int
    sum: float
    sum_sq: float
    counts: list[int]
    shape: NotRequired[list[int]]  # the tensor's shape


@dataclass
class HistogramSeries:
    """One tensor's histograms of one kind over training, as arrays a plot can draw."""

    name: str
    kind: str
    steps: list[int] = field(default_factory=list)
    lows: list[float] = field(default_factory=list)
    highs: list[float] = field(default_factory=list)
    counts: list[list[int]] = field(default_factory=list)

    def edges(self, i: int) -> np.ndarray:
        """The BINS + 1 bin edges of the i-th histogram."""
        return np.linspace(self.lows[i], self.highs[i], len(self.counts[i]) + 1)

    def density(self, bins: int = 60) -> tuple[np.ndarray, float, float]:
        """(steps × ``bins`` share of values per bin on one common value axis, its low, its high): the heat map
        of TensorBoard's distributions view. Each histogram's counts are spread over the common bins by
        overlap, so the rows of histograms with different ranges line up."""
        low, high = min(self.lows), max(self.highs)
        if high <= low:
            high = low + 1e-12
        common = np.linspace(low, high, bins + 1)
        out = np.zeros((len(self.steps), bins))
        for i, counts in enumerate(self.counts):
            edges = self.edges(i)
            total = max(sum(counts), 1)
            for c, a, b in zip(counts, edges[:-1], edges[1:], strict=True):
                if not c:
                    continue
                if b <= a:  # a constant tensor: all its values in one common bin
                    out[i, min(int((a - low) / (high - low) * bins), bins - 1)] += c / total
                    continue
                overlap = np.clip(np.minimum(common[1:], b) - np.maximum(common[:-1], a), 0, None)
                out[i] += c / total * overlap / (b - a)
        return out, low, high


def append(run_dir: str | Path, records: list[HistogramRecord]) -> None:
    """Append ``records`` to the run's histogram file (one line each, flushed)."""
    path = layout.histograms_path(run_dir)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records))


def read(run_dir: str | Path) -> list[HistogramRecord]:
    """Every complete record of the run's histogram file, in file order; [] when the run has none."""
    return read_from(run_dir, 0)[0]


def read_from(run_dir: str | Path, offset: int) -> tuple[list[HistogramRecord], int]:
    """(the complete records after byte ``offset``, the offset to read on from): a viewer of a running run
    reads only what was appended; a half-written last line is left for the next read."""
    path = layout.histograms_path(run_dir)
    if not path.is_file():
        return [], 0
    with open(path, "rb") as fh:
        fh.seek(offset)
        data = fh.read()
    end = data.rfind(b"\n") + 1  # up to the last complete line
    out: list[HistogramRecord] = []
    for line in data[:end].decode("utf-8", errors="replace").splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue  # a damaged line
        if isinstance(record, dict) and "counts" in record:
            out.append(record)  # type: ignore[arg-type]  # a dict read from our own file
    return out, offset + end


def series(records: list[HistogramRecord]) -> dict[tuple[str, str], HistogramSeries]:
    """The records grouped by (tensor name, kind), steps in order, tensors in the model's order. A step recorded
    twice (a run resumed from an earlier checkpoint does those steps again) keeps its later record."""
    latest: dict[tuple[str, str], dict[int, HistogramRecord]] = {}
    for r in records:
        latest.setdefault((r["name"], r["kind"]), {})[int(r["step"])] = r
    out: dict[tuple[str, str], HistogramSeries] = {}
    for (name, kind), by_step in latest.items():
        s = out[(name, kind)] = HistogramSeries(name, kind)
        for step in sorted(by_step):
            r = by_step[step]
            s.steps.append(step)
            s.lows.append(float(r["min"]))
            s.highs.append(float(r["max"]))
            s.counts.append([int(c) for c in r["counts"]])
    return out


def layers(records: list[HistogramRecord]) -> list[str]:
    """The tensor names that have histograms, in the model's order."""
    return list(dict.fromkeys(r["name"] for r in records))


def shapes(records: list[HistogramRecord]) -> dict[str, list[int]]:
    """Each tensor's shape, where the records give it."""
    return {r["name"]: list(r["shape"]) for r in records if "shape" in r}
