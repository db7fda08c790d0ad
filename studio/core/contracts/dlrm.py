"""DLRM-style hybrid parallelism (``studio dlrm``, the Parallelism lab's "DLRM hybrid" page; Naumov et al. 2019):
a small recommendation model — a bottom MLP on dense features, one embedding table per sparse feature, the
pairwise dot products of their vectors, a top MLP and a click probability trained with BCE — trained once in one
process and once on p ranks with the tables split between them (model parallel: each rank owns whole tables, the
looked-up vectors go to the rank whose samples they belong to by an all-to-all, and their gradients come back by
another) and the MLPs replicated (data parallel: an all-reduce of their gradients). Same initial weights, same
batches: the two losses must agree. Torch-free: the request, its limits (one sentence each, before any process
starts), the result's shape, and the arithmetic of table sizes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NotRequired, TypedDict

from studio.core.errors import ConfigError

# what an interval of a rank's timeline was spent on: drawing the step's batch of synthetic clicks, compute
# (forward: lookups, MLPs, interaction, loss; backward; optimizer), the all-to-all of the looked-up vectors
# (forward) and of their gradients (backward), the all-reduce of the MLPs' gradients, and the rest (waiting)
KINDS: tuple[str, ...] = ("data", "forward", "all-to-all", "backward", "all-reduce", "optimizer", "idle")
COMPUTE: tuple[str, ...] = ("data", "forward", "backward", "optimizer")
# tests only: "no-backward-exchange" drops the backward all-to-all (each table learns only from its own rank's
# samples); "replicated-tables" has every rank build every table, as plain data parallelism would
FAULTS: tuple[str, ...] = ("", "no-backward-exchange", "replicated-tables")
MIN_RANKS, MAX_RANKS = 2, 8
MAX_TABLES, MAX_ROWS, MAX_DIM = 64, 10_000_000, 256
MAX_REPEATS = 10
FLOAT_BYTES = 4
LATENT = 4  # the synthetic clicks' hidden vectors per row (what the model's dot products can learn)

# Naumov et al. 2019 (§6.1, their benchmark model): 8 tables of 1M vectors of dimension 64 — and production models
# with "several tables each requiring in excess of multiple GBs of memory" (§4)
PAPER_TABLES, PAPER_ROWS, PAPER_DIM = 8, 1_000_000, 64
V100_BYTES = 16 * 10**9  # the 16 GB of one V100 of Big Basin, the platform the paper measured on


@dataclass(frozen=True)
class DlrmRequest:
    """Train ``steps`` steps of global ``batch_size`` in one process and on ``ranks`` processes, ``tables``
    tables of ``rows`` × ``dim`` split between the ranks; ``repeats`` seeds from ``seed`` (each both ways; the first
    is the one drawn). The timeline keeps ``timeline_steps`` steps after ``warmup_steps``. ``port``: the rendezvous
    port on 127.0.0.1 (0: a free one). ``fault``: a deliberately broken set-up, for tests (``FAULTS``)."""

    ranks: int = 2
    tables: int = 8
    rows: int = 100_000
    dim: int = 16
    dense: int = 13  # Criteo's 13 dense features
    bottom: tuple[int, ...] = (64, 32)  # the bottom MLP's hidden widths (its output is ``dim``)
    top: tuple[int, ...] = (64, 32)  # the top MLP's hidden widths (its output is one logit)
    batch_size: int = 256
    steps: int = 100
    warmup_steps: int = 2
    timeline_steps: int = 3
    lr: float = 0.05  # Adagrad's
    seed: int = 0
    repeats: int = 1
    port: int = 0
    device: str = "cpu"  # "cpu" (gloo) or "cuda" (NCCL, one GPU per rank)
    fault: str = ""

    def seeds(self) -> list[int]:
        return [self.seed + i for i in range(self.repeats)]


def owners(tables: int, ranks: int) -> list[list[int]]:
    """The tables each rank owns: contiguous blocks in rank order, the first ranks one more when they do not
    divide (so the vectors an all-to-all brings back, in rank order, are in table order)."""
    base, extra = divmod(tables, ranks)
    out, start = [], 0
    for r in range(ranks):
        size = base + (1 if r < extra else 0)
        out.append(list(range(start, start + size)))
        start += size
    return out


def table_bytes(tables: int, rows: int, dim: int) -> int:
    """Bytes of ``tables`` float32 tables of ``rows`` × ``dim``."""
    return tables * rows * dim * FLOAT_BYTES


def exchange_bytes(batch: int, tables: int, dim: int) -> int:
    """The all-to-all's volume of one step in one direction, summed over the ranks: every sample's vector of every
    table, batch × tables × dim × 4 bytes (of which (p−1)/p leaves its rank)."""
    return batch * tables * dim * FLOAT_BYTES


def interactions(tables: int) -> int:
    """Pairwise dot products of the bottom MLP's output and the tables' vectors: (T+1)·T/2."""
    return (tables + 1) * tables // 2


def validate(request: DlrmRequest) -> None:
    """Raise :class:`ConfigError` (one sentence) on a request that cannot run."""
    r = request
    if not MIN_RANKS <= r.ranks <= MAX_RANKS:
        raise ConfigError(f"hybrid parallelism needs {MIN_RANKS} to {MAX_RANKS} processes (not {r.ranks})")
    if not 1 <= r.tables <= MAX_TABLES:
        raise ConfigError(f"the model has 1 to {MAX_TABLES} embedding tables (not {r.tables})")
    if r.tables < r.ranks:
        raise ConfigError(f"{r.ranks} processes but only {r.tables} tables: each process needs a table of its own; "
                          f"use at least {r.ranks} tables or fewer processes")
    if not 2 <= r.rows <= MAX_ROWS:
        raise ConfigError(f"a table has 2 to {MAX_ROWS:,} rows (not {r.rows:,})")
    if not 2 <= r.dim <= MAX_DIM:
        raise ConfigError(f"the embedding dimension is 2 to {MAX_DIM} (not {r.dim})")
    if not 1 <= r.dense <= 1024:
        raise ConfigError(f"the dense features are 1 to 1024 (not {r.dense})")
    if any(w < 1 for w in (*r.bottom, *r.top)):
        raise ConfigError("the MLPs' widths are whole numbers from 1, e.g. 64,32")
    if r.batch_size < r.ranks or r.batch_size % r.ranks:
        raise ConfigError(f"the global batch {r.batch_size} does not split evenly over {r.ranks} processes; pick a "
                          "batch size they divide")
    if r.batch_size > 65536:
        raise ConfigError(f"the global batch is at most 65,536 (not {r.batch_size:,})")
    if r.warmup_steps < 0 or r.steps <= r.warmup_steps:
        raise ConfigError(f"{r.steps} steps leave none to time after {r.warmup_steps} warm-up steps; use more steps")
    if r.steps > 10_000:
        raise ConfigError(f"at most 10,000 steps (not {r.steps:,})")
    if not 1 <= r.timeline_steps <= r.steps - r.warmup_steps:
        raise ConfigError(f"the timeline keeps 1 to {r.steps - r.warmup_steps} of the timed steps "
                          f"(not {r.timeline_steps})")
    if not (math.isfinite(r.lr) and r.lr > 0):
        raise ConfigError(f"the learning rate must be a positive number (not {r.lr})")
    if not 1 <= r.repeats <= MAX_REPEATS:
        raise ConfigError(f"repeats (seeds) are 1 to {MAX_REPEATS} (not {r.repeats})")
    if r.port and not 1024 <= r.port <= 65535:
        raise ConfigError(f"the rendezvous port is 1024 to 65535, or 0 for a free one (not {r.port})")
    if r.device not in ("cpu", "cuda"):
        raise ConfigError(f"the device is cpu or cuda (not {r.device!r})")
    if r.fault not in FAULTS:
        raise ConfigError(f"unknown fault {r.fault!r}")


class Interval(TypedDict):
    """One measured interval of one rank, in seconds since the first rank left the barrier before the timeline."""

    rank: int
    kind: str  # one of KINDS
    start: float
    end: float
    step: int


class RankMemory(TypedDict):
    """What one process holds, counted (bytes of its tensors) and measured (``rss_growth``: how much its resident
    memory grew while it built its part of the model, every table's rows written as they are initialised)."""

    rank: int  # -1: the single process
    tables: list[int]  # the tables it holds
    table_bytes: int
    mlp_bytes: int  # the bottom and top MLPs' parameters
    optimizer_bytes: int  # Adagrad's accumulators: one per parameter of its tables and of the MLPs
    gradient_bytes: int  # the MLPs' gradients and the tables' sparse gradients of one step
    exchange_bytes: int  # the vectors it sends and receives in one step's all-to-alls (both directions)
    rss_growth: int


class SeedRun(TypedDict):
    seed: int
    single: list[float]  # the training loss of the global batch per step, one process
    hybrid: list[float]  # the same, hybrid-parallel on p ranks
    max_gap: float  # max |hybrid − single| over the steps


class Exchange(TypedDict):
    """The all-to-alls' bytes per step, summed over the ranks (counted where the vectors are sent)."""

    forward: list[int]  # per step (every seed's steps in turn): the looked-up vectors
    backward: list[int]  # per step: their gradients
    off_rank: list[int]  # per step: the forward's bytes that left their rank
    model: int  # batch × tables × dim × 4
    allreduce: int  # bytes of the MLPs' gradients each rank all-reduces per step


class DlrmResult(TypedDict):
    runs: list[SeedRun]
    loss_tolerance: float
    equal: bool  # every seed's max_gap ≤ loss_tolerance
    owners: list[list[int]]
    memory: list[RankMemory]  # per rank, hybrid
    single_memory: RankMemory
    exchange: Exchange
    timeline: list[Interval]  # the hybrid ranks, timeline steps of the first seed
    single_timeline: list[Interval]  # the single process (lane 0), the same steps
    step_ms: dict[str, float]  # "single", "hybrid": median wall time of a timed step
    shares: list[dict[str, float]]  # per rank: the share of the timeline spent on each kind
    floor: float  # the synthetic clicks' Bayes loss (their true probabilities' entropy), estimated
    base: float  # the loss of always predicting the mean click rate
    click_rate: float
    ranks: int
    tables: int
    rows: int
    dim: int
    batch_size: int
    steps: int
    lr: float
    device: str
    cores: int
    load: float
    notes: NotRequired[list[str]]
