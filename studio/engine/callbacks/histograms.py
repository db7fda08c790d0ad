"""Weight and gradient histograms per parameter tensor over training (TensorBoard's histograms/distributions).

Every ``train.histogram_every`` steps (default 100; 0: off), right after the backward pass, rank 0 bins every
parameter tensor's weights and gradients into ``BINS`` even bins between its min and max, on the device (each
tensor's min and max are read on the host, as ``torch.histc`` takes them as numbers), and brings the bins of all
of them to the host in one copy; the records are appended to ``run_dir/histograms.jsonl``
(``core/runs/histograms.py`` owns the format and the reader). Gradients under DDP are already averaged by then.
Cost on the default MLP (0.67 M parameters, CPU, one thread): about 5 ms per record against 5–6 ms per
step, so every 100 steps is about 1 % of the run (tests/benchmarks/test_histogram_cost.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from studio.core.runs import histograms
from studio.engine.callbacks.base import Callback, every
from studio.engine.callbacks.regularisers import GradientClipping, GradientNoise
from studio.engine.loop.trainer import Trainer


def summarise(values: torch.Tensor, bins: int = histograms.BINS) -> torch.Tensor:
    """[min, max, num, sum, sum of squares, counts…] of a tensor's values, on its device, in float64 (the bins
    are counted in the tensor's own precision, float32 for float16/bfloat16 tensors)."""
    v = values.detach().flatten()
    if not v.is_floating_point() or v.element_size() < 4:
        v = v.float()
    if not v.numel():
        return torch.zeros(5 + bins, dtype=torch.float64, device=v.device)
    low, high = torch.aminmax(v)
    lo, hi = float(low), float(high)
    if hi > lo:
        counts = torch.histc(v, bins=bins, min=lo, max=hi)
    else:
        counts = torch.zeros(bins, dtype=v.dtype, device=v.device)
        counts[0] = v.numel()
    head = torch.stack([low.double(), high.double(), torch.tensor(float(v.numel()), dtype=torch.float64,
                                                                  device=v.device),
                        v.sum(dtype=torch.float64), torch.dot(v, v).double()])
    return torch.cat([head, counts.double()])


def records_of(net: torch.nn.Module, step: int, bins: int = histograms.BINS) -> list[histograms.HistogramRecord]:
    """The weight (and, where there is one, gradient) histogram of every trainable tensor of ``net``."""
    parts: list[tuple[str, str, list[int]]] = []
    rows = []
    for name, p in net.named_parameters():
        if not p.requires_grad:
            continue
        parts.append((name, "weight", list(p.shape)))
        rows.append(summarise(p, bins))
        if p.grad is not None and not p.grad.is_sparse:
            parts.append((name, "grad", list(p.shape)))
            rows.append(summarise(p.grad, bins))
    if not rows:
        return []
    table = torch.stack(rows).cpu().tolist()  # one copy to the host
    return [{"step": step, "name": name, "kind": kind, "min": row[0], "max": row[1], "num": int(row[2]),
             "sum": row[3], "sum_sq": row[4], "counts": [int(round(c)) for c in row[5:]], "shape": shape}
            for (name, kind, shape), row in zip(parts, table, strict=True)]


class HistogramRecorder(Callback):
    """Appends weight and gradient histograms of every parameter tensor every ``every`` steps (rank 0)."""

    stage = "observe"
    runs_after = (GradientClipping, GradientNoise)  # the gradients the optimizer steps with

    def __init__(self, run_dir: str | Path, every: int, bins: int = histograms.BINS) -> None:
        self.run_dir, self.every, self.bins = Path(run_dir), every, bins

    def describe(self) -> str:
        return f"weight and gradient histograms of each parameter tensor {every(self.every, 'step')} ({self.bins} bins)"

    def on_after_backward(self, t: Trainer) -> None:
        if t.ctx.is_main and t.step % self.every == 0:  # t.step: steps done before this one (0 first)
            with torch.no_grad():
                histograms.append(self.run_dir, records_of(t.net, t.step, self.bins))


def histogram_callbacks(cfg: Any, run_dir: str | Path) -> list[Callback]:
    """The recorder when ``train.histogram_every`` > 0 and the run has a directory."""
    every = int(getattr(cfg.train, "histogram_every", 0) or 0)
    return [HistogramRecorder(run_dir, every)] if run_dir and every > 0 else []
