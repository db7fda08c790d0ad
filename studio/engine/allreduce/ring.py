"""The ring all-reduce of Patarasuk & Yuan (2009), as Horovod runs it (Sergeev & Del Balso 2018): the vector is
cut into p chunks; in p−1 steps of reduce-scatter each rank sends one chunk to its right neighbour and adds the
chunk it receives from its left one, after which rank r holds the whole sum of chunk r+1; in p−1 steps of
all-gather the summed chunks go round the ring once more. Each rank sends (and receives) 2(p−1) chunks of N/p
bytes: 2(p−1)/p·N, never more than 2N however many ranks there are."""

from __future__ import annotations

from typing import Any

from studio.engine.allreduce.traffic import Spans, Traffic


def chunk_of(rank: int, step: int, p: int, phase: str) -> tuple[int, int]:
    """(the chunk ``rank`` sends, the chunk it receives) at ``step`` (0-based) of ``phase``."""
    if phase == "reduce-scatter":
        return (rank - step) % p, (rank - step - 1) % p
    return (rank - step + 1) % p, (rank - step) % p


def ring_allreduce(x: Any, rank: int, p: int, traffic: Traffic, spans: Spans, group: Any = None,
                   fault: str = "") -> None:
    """Sum ``x`` (contiguous) over ranks 0…p−1 of ``group`` in place. ``fault="short-ring"``: the all-gather
    stops one step early (a broken ring, for tests: one chunk of the result stays a partial sum)."""
    import torch

    chunks = list(x.view(-1).tensor_split(p))  # contiguous views of x; the first ones take the remainder
    right, left = (rank + 1) % p, (rank - 1) % p
    incoming = torch.empty_like(chunks[0])
    for s in range(p - 1):
        send, recv = chunk_of(rank, s, p, "reduce-scatter")
        buffer = incoming[:chunks[recv].numel()]
        with spans.span("reduce-scatter", s + 1):
            traffic.exchange([(chunks[send], right)], [(buffer, left)], group)
        with spans.span("reduce", s + 1):
            chunks[recv].add_(buffer)
    for s in range(p - 1 - (1 if fault == "short-ring" else 0)):
        send, recv = chunk_of(rank, s, p, "all-gather")
        with spans.span("all-gather", p + s):
            traffic.exchange([(chunks[send], right)], [(chunks[recv], left)], group)
