"""One model four ways (``studio parallel``, the Parallelism lab's first page): the same network and global
batch trained single-process, data-parallel (DDP), model-parallel (contiguous stages, one per rank) and
pipeline-parallel (M micro-batches, GPipe and 1F1B schedules), each with a measured per-rank timeline.
Torch-free: the request, its limits, and the result's shape shared by the engine, the CLI and the GUI."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NotRequired, TypedDict

MODES: tuple[str, ...] = ("single", "ddp", "model", "pipeline-gpipe", "pipeline-1f1b")
PIPELINE_MODES: tuple[str, ...] = ("pipeline-gpipe", "pipeline-1f1b")
# what an interval of a rank's timeline was spent on; "idle" is waiting (for a peer, for data)
KINDS: tuple[str, ...] = ("forward", "backward", "optimizer", "send", "recv", "allreduce", "idle")


@dataclass(frozen=True)
class ParallelRequest:
    """Train the same network ``steps`` steps at global ``batch_size`` in each of ``modes`` on ``ranks``
    processes (one device each with CUDA); pipeline modes once per micro-batch count in ``microbatches``.
    The timeline keeps the intervals of ``timeline_steps`` steps after the warm-up."""

    modes: tuple[str, ...] = MODES
    ranks: int = 2
    microbatches: tuple[int, ...] = (4,)
    dataset: str = "fashion_mnist_small"
    # The MLP's hidden layers (the layers the stages split): two stages with equal forwards AND backwards (fc1-fc3
    # | fc4-fc5), and a batch whose micro-batches still outweigh the schedule's own overhead at M = 8, so the
    # measured bubble follows (p−1)/(M+p−1) on 2 CPU cores (batch 64 on 512,512,512 left every bubble near 75 %:
    # send/recv of tiny micro-batches dominated). About 40 s for every mode at M = 1, 2, 4, 8 on 2 cores.
    widths: tuple[int, ...] = (64, 2048, 1024, 2048)
    batch_size: int = 1024
    steps: int = 12
    warmup_steps: int = 3
    timeline_steps: int = 3
    lr: float = 0.05
    seed: int = 0
    device: str = "cpu"  # "cpu" or "cuda"


class Interval(TypedDict):
    """One measured interval of one rank, in seconds since the first timeline step began (one clock)."""

    rank: int
    kind: str  # one of KINDS
    start: float
    end: float
    step: int
    microbatch: int | None  # None: not tied to one micro-batch (the optimizer, DDP's all-reduce)
    cpu: NotRequired[float]  # compute kinds: the CPU seconds the rank's thread got in it (absent in old recordings)


class RankMemory(TypedDict):
    """Bytes one rank holds: its parameters, their gradients, the optimizer's state, and the activations kept
    for the backward pass at the step's peak (measured); ``layers`` names the layers it holds."""

    rank: int
    parameters: int
    gradients: int
    optimizer: int
    activations: int
    layers: list[str]
    device_peak: NotRequired[int | None]  # with CUDA: torch.cuda.max_memory_allocated over the mode (else None)


class ModeResult(TypedDict):
    """One mode (a pipeline mode: one row per micro-batch count)."""

    mode: str
    ranks: int
    microbatches: int  # 1 outside the pipeline modes
    samples_per_s: float
    step_ms: float
    losses: list[list[float]]  # [samples seen, training loss of the global batch] per step
    final_loss: float
    max_loss_gap: float  # max |loss − single-process loss| over the steps (0 for single)
    timeline: list[Interval]
    busy: list[float]  # per rank: share of the timeline steps spent computing (forward, backward, optimizer)
    bubble: float | None  # measured idle share of the pipeline ranks (pipeline and model modes)
    bubble_theory: float | None  # (p − 1) / (m + p − 1)
    memory: list[RankMemory]
    # per rank: the share of a core it got while computing (thread CPU time ÷ wall time of its compute intervals,
    # one torch thread per rank); well below 1 when other programs took the cores, which stretches every timeline
    cpu_share: NotRequired[list[float | None]]


class ParallelResult(TypedDict):
    rows: list[ModeResult]
    stages: list[list[str]]  # layer names per stage (model and pipeline modes)
    device: str
    cores: int
    dataset: str
    batch_size: int
    steps: int
    ranks: int
    loss_tolerance: float  # the largest gap the equal-curves check allows
    notes: NotRequired[list[str]]  # what was not run and why (e.g. 1F1B needs at least as many micro-batches as ranks)
    equal_curves: NotRequired[bool]  # every row's max_loss_gap ≤ loss_tolerance
    pending: NotRequired[list[tuple[str, int]]]  # a frame while it runs: (mode, micro-batches) still to measure
