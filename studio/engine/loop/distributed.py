"""Thin helpers over torch.distributed that are no-ops for a single process."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import torch
import torch.distributed as dist


@dataclass
class DistContext:
    rank: int = 0
    world_size: int = 1
    device: torch.device = torch.device("cpu")

    @property
    def is_main(self) -> bool:
        return self.rank == 0

    @property
    def distributed(self) -> bool:
        return self.world_size > 1


def init(rank: int, world_size: int, init_method: str | None, device: torch.device) -> DistContext:
    """Join the process group (NCCL on CUDA, gloo on CPU) when there is more than one rank.

    The timeout is long because a paused run waits in a collective; a dead peer is still noticed
    at once (its socket closes) and the launcher tears the others down.
    """
    if world_size > 1:
        backend = "nccl" if device.type == "cuda" else "gloo"
        kwargs: dict[str, Any] = {"device_id": device} if device.type == "cuda" else {}
        store = elastic_store(init_method)
        dist.init_process_group(backend, init_method=None if store else init_method, store=store, rank=rank,
                                world_size=world_size, timeout=timedelta(hours=12), **kwargs)
    return DistContext(rank, world_size, device)


def elastic_store(init_method: str | None = "env://", timeout: timedelta = timedelta(minutes=10)) -> dist.Store | None:
    """Under torchrun, the agent's store with a prefix per restart: after an elastic restart (``--max-restarts``)
    the agent's store still holds the previous attempt's addresses, and ranks that read them connect to dead
    peers (seen with torch 2.14's c10d rendezvous). None when not under torchrun: ``init_method`` as given."""
    import os

    if init_method != "env://" or os.environ.get("TORCHELASTIC_USE_AGENT_STORE") != "True":
        return None
    client = dist.TCPStore(os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"]), is_master=False,
                           timeout=timeout)
    return dist.PrefixStore(f"studio/attempt_{os.environ.get('TORCHELASTIC_RESTART_COUNT', '0')}", client)


def shutdown(synchronize: bool = False) -> None:
    """Destroy the process group. ``synchronize`` (every rank ended cleanly): a barrier first, so no rank tears
    gloo down while a peer's last collective is still in flight (that aborts the peer: "terminate called
    without an active exception", seen once in CI)."""
    if dist.is_available() and dist.is_initialized():
        if synchronize:
            dist.barrier()
        dist.destroy_process_group()


def all_reduce_sum(ctx: DistContext, tensor: torch.Tensor) -> torch.Tensor:
    if ctx.distributed:
        dist.all_reduce(tensor, op=dist.ReduceOp.SUM)
    return tensor


def broadcast_code(ctx: DistContext, code: int) -> int:
    """Rank 0's integer reaches every rank (how ranks agree on stop/pause without deadlock)."""
    if not ctx.distributed:
        return code
    t = torch.tensor([code], dtype=torch.int64, device=ctx.device)
    dist.broadcast(t, src=0)
    return int(t.item())


def agree(ctx: DistContext, code: int, stop: bool) -> tuple[int, bool]:
    """Rank 0's command code, and whether ANY rank wants to stop (SIGTERM, its parent gone): one collective."""
    if not ctx.distributed:
        return code, stop
    t = torch.tensor([code if ctx.is_main else 0, int(stop)], dtype=torch.int64, device=ctx.device)
    dist.all_reduce(t, op=dist.ReduceOp.SUM)
    return int(t[0].item()), bool(t[1].item())
