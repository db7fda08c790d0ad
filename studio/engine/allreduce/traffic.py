"""What a rank measures of its communication: the bytes it sends and receives (counted where it sends and
receives them) and its intervals on one clock.

One clock: ``time.perf_counter()`` reads ``CLOCK_MONOTONIC`` on Linux, one system-wide clock, so the stamps of the
ranks (processes of this machine) compare directly; each measured operation starts after a barrier, the earliest
rank out of it is the origin."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


class Traffic:
    """Bytes this rank sent and received through :meth:`exchange` (and what :meth:`count` adds)."""

    def __init__(self) -> None:
        self.sent = 0
        self.received = 0

    def exchange(self, sends: list[tuple[Any, int]], recvs: list[tuple[Any, int]], group: Any = None) -> None:
        """Send each ``(tensor, peer)`` of ``sends`` and receive into each of ``recvs`` (peers are global ranks),
        posted together as one batch (``batch_isend_irecv``: NCCL would deadlock on a ring of separate blocking
        pairs), and wait for all of them."""
        import torch.distributed as dist

        ops = [dist.P2POp(dist.isend, t, peer, group) for t, peer in sends]
        ops += [dist.P2POp(dist.irecv, t, peer, group) for t, peer in recvs]
        self.sent += sum(t.numel() * t.element_size() for t, _ in sends)
        self.received += sum(t.numel() * t.element_size() for t, _ in recvs)
        for work in dist.batch_isend_irecv(ops):
            work.wait()

    def count(self, sent: int, received: int) -> None:
        """Bytes a collective moved for this rank (what it sent to others, what it received from them)."""
        self.sent += sent
        self.received += received


class Spans:
    """A rank's intervals while ``on``: ``with spans.span("reduce", step): ...``; ``sync`` (CUDA) is called at
    each stamp, so an interval holds its kernels, not their launch."""

    def __init__(self, rank: int, sync: Any = None) -> None:
        self.rank = rank
        self.sync = sync
        self.on = False
        self.raw: list[tuple[str, float, float, int]] = []

    @contextmanager
    def span(self, kind: str, step: int = 0) -> Iterator[None]:
        if not self.on:
            yield
            return
        if self.sync:
            self.sync()
        start = time.perf_counter()
        try:
            yield
        finally:
            if self.sync:
                self.sync()
            self.raw.append((kind, start, time.perf_counter(), step))

    def intervals(self, origin: float) -> list[dict[str, Any]]:
        """The intervals as ``Phase`` dicts, in seconds since ``origin``, in the order they began."""
        return [{"rank": self.rank, "kind": k, "start": s - origin, "end": e - origin, "step": step}
                for k, s, e, step in sorted(self.raw, key=lambda r: r[1])]


def carve(intervals: list[dict[str, Any]], inner: tuple[str, ...]) -> list[dict[str, Any]]:
    """Intervals of one lane where those of the ``inner`` kinds may lie inside others (an all-to-all inside a
    backward pass): each outer interval is cut around them, so no two overlap."""
    inside = sorted((i for i in intervals if i["kind"] in inner), key=lambda i: i["start"])
    out = list(inside)
    for outer in (i for i in intervals if i["kind"] not in inner):
        cursor = outer["start"]
        for cut in inside:
            if cut["rank"] != outer["rank"] or cut["end"] <= cursor or cut["start"] >= outer["end"]:
                continue
            if cut["start"] > cursor:
                out.append({**outer, "start": cursor, "end": cut["start"]})
            cursor = max(cursor, cut["end"])
        if outer["end"] > cursor:
            out.append({**outer, "start": cursor, "end": outer["end"]})
    return sorted(out, key=lambda i: (i["rank"], i["start"]))


def with_idle(intervals: list[dict[str, Any]], ranks: list[int], end: float) -> list[dict[str, Any]]:
    """Every rank's lane from 0 to ``end`` with its gaps filled by ``idle`` intervals (the step of the interval
    after the gap), sorted by rank then start."""
    out: list[dict[str, Any]] = []
    for rank in ranks:
        mine = sorted((i for i in intervals if i["rank"] == rank), key=lambda i: i["start"])
        cursor = 0.0
        for interval in mine:
            if interval["start"] > cursor:
                out.append({**interval, "kind": "idle", "start": cursor, "end": interval["start"]})
            out.append(interval)
            cursor = max(cursor, interval["end"])
        if end > cursor:
            last = dict(mine[-1]) if mine else {"rank": rank, "step": 0}
            out.append({**last, "kind": "idle", "start": cursor, "end": end})
    return out
