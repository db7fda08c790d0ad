"""What a rank measures: its intervals on one clock, and the bytes of activations kept for the backward pass.

One clock: every stamp is ``time.perf_counter()``, which on Linux reads ``CLOCK_MONOTONIC``, one system-wide
clock, so the stamps of the ranks (processes on this machine) compare directly. Every rank stamps the moment it
leaves a barrier before the first timeline step; the earliest of those stamps is the origin, and every rank's
stamps are offsets from it. (Ranks on several
machines would each need their own origin after that barrier; this lab runs on one.)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from studio.core.contracts.parallel import Interval

COMPUTE = ("forward", "backward", "optimizer")


class Recorder:
    """A rank's intervals while ``on``: ``with rec.span("forward", mb): ...`` or ``rec.add(kind, start, end)``."""

    def __init__(self, rank: int, sync: Callable[[], None] | None = None) -> None:
        self.rank = rank
        self.sync = sync  # CUDA: synchronise at each stamp, so an interval holds its kernels, not their launch
        self.on = False
        self.step = 0
        self.raw: list[tuple[str, float, float, int, int | None, float | None]] = []
        self.compute_wall = 0.0  # seconds inside compute spans, and the CPU time this thread got in them
        self.compute_cpu = 0.0

    @contextmanager
    def span(self, kind: str, microbatch: int | None = None) -> Iterator[None]:
        if not self.on:
            yield
            return
        if self.sync:
            self.sync()
        start, cpu = time.perf_counter(), time.thread_time()
        try:
            yield
        finally:
            if self.sync:
                self.sync()
            end = time.perf_counter()
            used = time.thread_time() - cpu if kind in COMPUTE else None
            self.raw.append((kind, start, end, self.step, microbatch, used))
            if used is not None:
                self.compute_wall += end - start
                self.compute_cpu += used

    @property
    def cpu_share(self) -> float | None:
        """The share of a core this rank's thread got while computing (CPU time ÷ wall time of its compute
        spans; one torch thread per rank): below 1 when other programs took the cores. None: nothing timed."""
        return self.compute_cpu / self.compute_wall if self.compute_wall > 0 else None

    def add(self, kind: str, start: float, end: float, microbatch: int | None = None) -> None:
        if self.on and end > start:
            self.raw.append((kind, start, end, self.step, microbatch, None))

    def intervals(self, origin: float) -> list[Interval]:
        return self.from_raw(self.rank, self.raw, origin)

    @staticmethod
    def from_raw(rank: int, raw: list[Any], origin: float) -> list[Interval]:
        """A rank's ``raw`` records (as sent from its process) as intervals on the clock that starts at ``origin``."""
        out: list[Interval] = []
        for k, s, e, step, mb, used in sorted(raw, key=lambda r: r[1]):
            interval: Interval = {"rank": rank, "kind": k, "start": s - origin, "end": e - origin, "step": step,
                                  "microbatch": mb}
            if used is not None:
                interval["cpu"] = min(used, e - s)  # the two clocks tick apart by a few microseconds
            out.append(interval)
        return out


def with_idle(intervals: list[Interval], ranks: list[int], end: float) -> list[Interval]:
    """Every rank's lane from 0 to ``end`` with its gaps filled by ``idle`` intervals (the step of the interval
    after the gap), sorted by rank then start."""
    out: list[Interval] = []
    for rank in ranks:
        mine = sorted((i for i in intervals if i["rank"] == rank), key=lambda i: i["start"])
        cursor = 0.0
        for interval in mine:
            if interval["start"] > cursor:
                out.append({"rank": rank, "kind": "idle", "start": cursor, "end": interval["start"],
                            "step": interval["step"], "microbatch": None})
            out.append(interval)
            cursor = max(cursor, interval["end"])
        if end > cursor:
            out.append({"rank": rank, "kind": "idle", "start": cursor, "end": end,
                        "step": mine[-1]["step"] if mine else 0, "microbatch": None})
    return out


def busy_shares(intervals: list[Interval], ranks: list[int], end: float) -> list[float]:
    """Per rank: the share of [0, end] spent computing (forward, backward, optimizer)."""
    if end <= 0:
        return [0.0 for _ in ranks]
    return [sum(i["end"] - i["start"] for i in intervals if i["rank"] == r and i["kind"] in COMPUTE) / end
            for r in ranks]


class _Saved:
    """A tensor autograd saved for backward, counted while the graph holds it (freed after its backward)."""

    __slots__ = ("tensor", "meter", "key")

    def __init__(self, tensor: Any, meter: ActivationMeter, key: int) -> None:
        self.tensor, self.meter, self.key = tensor, meter, key

    def __del__(self) -> None:
        self.meter.release(self.key)


class ActivationMeter:
    """The bytes of tensors autograd keeps for the backward pass, live and at their peak, counted once per buffer
    (a tensor saved by two operations is one) and without the parameters (counted as parameters).

    ``with meter.track(): forward and backward`` (``torch.autograd.graph.saved_tensors_hooks``): a saved tensor is
    counted when the forward saves it and released when its graph node frees it after the backward."""

    def __init__(self, parameters: list[Any]) -> None:
        self.exclude = {p.untyped_storage().data_ptr() for p in parameters}
        self.live: dict[int, list[int]] = {}  # storage → [bytes, references]
        self.current = 0
        self.peak = 0
        self.step_peak = 0  # the largest peak of one step (``track``), in bytes

    def release(self, key: int) -> None:
        entry = self.live.get(key)
        if entry is None:
            return
        entry[1] -= 1
        if entry[1] == 0:
            self.current -= entry[0]
            del self.live[key]

    def _pack(self, tensor: Any) -> Any:
        if tensor.device.type == "meta" or tensor.untyped_storage().data_ptr() in self.exclude:
            return tensor
        key = tensor.data_ptr()  # one buffer saved twice (a ReLU's output, the next Linear's input) counts once
        size = tensor.numel() * tensor.element_size()  # a view (a micro-batch of the batch) counts its own bytes
        entry = self.live.get(key)
        if entry is None:
            self.live[key] = [size, 1]
            self.current += size
            self.peak = max(self.peak, self.current)
        else:
            entry[1] += 1
        return _Saved(tensor, self, key)

    @staticmethod
    def _unpack(packed: Any) -> Any:
        return packed.tensor if isinstance(packed, _Saved) else packed

    @contextmanager
    def track(self) -> Iterator[None]:
        """Count what one step saves; ``step_peak`` keeps the largest rise above what was live at its start
        (a graph an earlier step left alive, e.g. the pipeline's shape-inference forward, is not this step's)."""
        import torch

        base = self.current
        self.peak = self.current
        with torch.autograd.graph.saved_tensors_hooks(self._pack, self._unpack):
            yield
        self.step_peak = max(self.step_peak, self.peak - base)
