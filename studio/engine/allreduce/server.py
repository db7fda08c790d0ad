"""The central reduce, as a parameter server sums gradients: every rank sends its N bytes to rank 0, which adds
them up and sends the sum back to each. Rank 0 receives (p−1)·N bytes and sends (p−1)·N: its traffic grows
linearly with the ranks while every other rank's stays N."""

from __future__ import annotations

from typing import Any

from studio.engine.allreduce.traffic import Spans, Traffic


def server_allreduce(x: Any, rank: int, p: int, traffic: Traffic, spans: Spans, group: Any = None) -> None:
    """Sum ``x`` over ranks 0…p−1 of ``group`` in place, through rank 0."""
    import torch

    if rank != 0:
        with spans.span("send"):
            traffic.exchange([(x, 0)], [], group)
        with spans.span("recv"):  # waiting for the server to gather, add and send back: the sum
            traffic.exchange([], [(x, 0)], group)
        return
    parts = [torch.empty_like(x) for _ in range(1, p)]
    with spans.span("recv"):
        traffic.exchange([], [(part, peer) for peer, part in enumerate(parts, start=1)], group)
    with spans.span("reduce"):
        for part in parts:
            x.add_(part)
    with spans.span("send"):
        traffic.exchange([(x, peer) for peer in range(1, p)], [], group)
