"""What a rank process gets: :class:`RankSpec`. Torch-free, so the parent can pickle it without importing torch."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from studio.core.host.threads import ThreadPlan


@dataclass
class RankSpec:
    """One rank of a training job: which run, where it reports, how it meets the other ranks."""

    run_id: str
    world_size: int
    config: dict[str, Any]  # RunConfig.to_dict()
    run_dir: str
    home: str = ""  # the RunStore rank 0 records the run in ("" for none)
    queue: Any = None  # messages to the parent (None under torchrun: the RunStore is the sink)
    control: Any = None  # the parent's commands (rank 0 only)
    init_method: str | None = None  # torch.distributed rendezvous when world_size > 1
    threads: ThreadPlan | None = None  # None: decided in the rank (core/host/threads.py)
    local_rank: int | None = None  # the GPU index base under torchrun (default: the rank)
    env: dict[str, str] = field(default_factory=dict)  # set before torch is imported (spawned ranks)
    parent_pid: int | None = None  # the launcher: a rank whose parent is gone stops (engine/training/rank_watch.py)
    beats: Any = None  # a shared array of (step, time) per rank: the launcher's stall watch
    resume_from: str | None = None  # a checkpoint to continue from

    def for_rank(self, rank: int) -> RankSpec:
        """This spec as rank ``rank`` sees it (only rank 0 reads the control queue)."""
        return replace(self, control=self.control if rank == 0 else None)
