"""Ring all-reduce against a central parameter-server reduce (``studio allreduce``, the Parallelism lab's "Ring
all-reduce" page): p rank processes sum an N-byte vector three ways — the ring of Patarasuk & Yuan (2009) that
Horovod uses (Sergeev & Del Balso 2018: reduce-scatter then all-gather with point-to-point sends), every rank
sending its N bytes to rank 0 which reduces and sends the sum back, and torch's own ``all_reduce`` as the
reference — measuring each rank's bytes (counted by the implementation) and time (wall and CPU) against the cost
model 2(p−1)/p·N bytes per ring rank and (p−1)·N at the server. Torch-free: the request, its limits (one sentence
each, before any process starts) and the result's shape.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NotRequired, TypedDict

from studio.core.errors import ConfigError

ALGORITHMS: tuple[str, ...] = ("ring", "server", "torch")
LABELS: dict[str, str] = {"ring": "ring (reduce-scatter, all-gather)", "server": "central server (rank 0)",
                          "torch": "torch all_reduce"}
# what an interval of a rank's timeline was spent on: the ring's two phases (sending and receiving a chunk), the
# additions, the server's sends and receives, torch's all_reduce as one block; "idle" is the rest (a barrier)
KINDS: tuple[str, ...] = ("reduce-scatter", "all-gather", "send", "recv", "reduce", "all_reduce", "idle")
FAULTS: tuple[str, ...] = ("", "short-ring")  # tests: "short-ring", the all-gather stops one step early
MIN_RANKS, MAX_RANKS = 2, 8
ELEMENT_BYTES = 4  # float32
MIN_SIZE, MAX_SIZE = 1024, 64 * 2**20
MAX_REPEATS = 20
_UNITS = {"": 1, "b": 1, "k": 2**10, "kb": 2**10, "kib": 2**10, "m": 2**20, "mb": 2**20, "mib": 2**20}


@dataclass(frozen=True)
class AllreduceRequest:
    """Sum a float32 vector of each of ``sizes`` bytes over each of ``ranks`` processes with each of
    ``algorithms``, ``repeats`` times (after one untimed warm-up); the timeline is kept for ``timeline_ranks``
    processes and ``timeline_size`` bytes (0: the largest of each). ``port``: the rendezvous port on 127.0.0.1
    (0: a free one). ``fault``: a deliberately broken ring, for tests (``FAULTS``)."""

    ranks: tuple[int, ...] = (2, 4, 8)
    sizes: tuple[int, ...] = (2**20, 16 * 2**20)
    algorithms: tuple[str, ...] = ALGORITHMS
    repeats: int = 3
    timeline_ranks: int = 0
    timeline_size: int = 0
    seed: int = 0
    port: int = 0
    device: str = "cpu"  # "cpu" (gloo) or "cuda" (NCCL, one GPU per rank)
    fault: str = ""

    def world(self) -> int:
        """The processes started: the largest p (each smaller p is a group of the first p of them)."""
        return max(self.ranks)

    def shown_ranks(self) -> int:
        return self.timeline_ranks or max(self.ranks)

    def shown_size(self) -> int:
        return self.timeline_size or max(self.sizes)


def parse_size(text: str) -> int:
    """"16M" → 16 MiB, "512K" → 512 KiB, "4096" → 4096 bytes (powers of 1024); one sentence on anything else."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*", text)
    unit = match.group(2).lower() if match else ""
    if not match or unit not in _UNITS:
        raise ConfigError(f"a size is a number of bytes with K or M, e.g. 1M or 512K (not {text.strip()!r})")
    return int(float(match.group(1)) * _UNITS[unit])


def parse_sizes(text: str) -> tuple[int, ...]:
    """"1M,16M" → (1048576, 16777216)."""
    sizes = tuple(parse_size(v) for v in text.replace(";", ",").split(",") if v.strip())
    if not sizes:
        raise ConfigError("give at least one size, e.g. 1M,16M")
    return sizes


def size_text(n: int) -> str:
    """16777216 → "16M", 1536 → "1.5K", 1000 → "1000 B" (the form ``parse_size`` reads)."""
    for unit, scale in (("M", 2**20), ("K", 2**10)):
        if n >= scale:
            return f"{n / scale:g}{unit}"
    return f"{n} B"


def validate(request: AllreduceRequest) -> None:
    """Raise :class:`ConfigError` (one sentence) on a request that cannot run."""
    r = request
    if not r.ranks:
        raise ConfigError(f"give at least one process count from {MIN_RANKS} to {MAX_RANKS}, e.g. 2,4,8")
    for p in r.ranks:
        if p < MIN_RANKS:
            raise ConfigError(f"an all-reduce needs at least {MIN_RANKS} processes (not {p}): one has nothing to sum")
        if p > MAX_RANKS:
            raise ConfigError(f"{p} processes is more than this lab starts (at most {MAX_RANKS})")
    if not r.sizes:
        raise ConfigError("give at least one size, e.g. 1M,16M")
    for n in r.sizes:
        if not MIN_SIZE <= n <= MAX_SIZE:
            raise ConfigError(f"a size is {size_text(MIN_SIZE)} to {size_text(MAX_SIZE)} (not {size_text(n)})")
        if n % ELEMENT_BYTES:
            raise ConfigError(f"a size is whole float32 numbers: a multiple of 4 bytes (not {n})")
    unknown = [a for a in r.algorithms if a not in ALGORITHMS]
    if unknown:
        raise ConfigError(f"unknown algorithm {unknown[0]!r}; the algorithms are {', '.join(ALGORITHMS)}")
    if not r.algorithms:
        raise ConfigError(f"choose at least one algorithm of {', '.join(ALGORITHMS)}")
    if not 1 <= r.repeats <= MAX_REPEATS:
        raise ConfigError(f"repeats are 1 to {MAX_REPEATS} (not {r.repeats})")
    if r.timeline_ranks and r.timeline_ranks not in r.ranks:
        raise ConfigError(f"the timeline's process count {r.timeline_ranks} is not one of those measured "
                          f"({', '.join(map(str, r.ranks))})")
    if r.timeline_size and r.timeline_size not in r.sizes:
        raise ConfigError(f"the timeline's size {size_text(r.timeline_size)} is not one of those measured")
    if r.port and not 1024 <= r.port <= 65535:
        raise ConfigError(f"the rendezvous port is 1024 to 65535, or 0 for a free one (not {r.port})")
    if r.device not in ("cpu", "cuda"):
        raise ConfigError(f"the device is cpu or cuda (not {r.device!r})")
    if r.fault not in FAULTS:
        raise ConfigError(f"unknown fault {r.fault!r}")


def ring_bytes(p: int, n: int) -> float:
    """The ring's cost model: bytes each rank sends (and receives) to sum ``n`` bytes over ``p`` ranks,
    2(p−1)/p·n (p−1 steps of reduce-scatter and p−1 of all-gather, n/p bytes each)."""
    return 2 * (p - 1) / p * n


def server_bytes(p: int, n: int, rank: int) -> float:
    """The central reduce's cost model: rank 0 receives (and sends back) (p−1)·n bytes, every other rank n."""
    return float((p - 1) * n if rank == 0 else n)


def model_bytes(algorithm: str, p: int, n: int, rank: int) -> float | None:
    """Bytes ``rank`` sends in ``algorithm`` by the cost model (None for torch's own, which does not say)."""
    if algorithm == "ring":
        return ring_bytes(p, n)
    if algorithm == "server":
        return server_bytes(p, n, rank)
    return None


class Phase(TypedDict):
    """One measured interval of one rank, in seconds since the first rank left the barrier before it."""

    rank: int
    kind: str  # one of KINDS
    start: float
    end: float
    step: int  # the ring's step (reduce-scatter 1…p−1, all-gather p…2p−2); 0 elsewhere


class Measurement(TypedDict):
    """One algorithm at one p and one size: per rank, medians over the repeats (bytes are the same each time)."""

    algorithm: str
    ranks: int
    size: int  # N, bytes
    sent: list[int] | None  # bytes each rank sent, counted by the implementation (None: torch's, not counted)
    received: list[int] | None
    model: list[float] | None  # bytes each rank sends by the cost model
    wall_s: list[float]  # each rank's wall time of one all-reduce (median over repeats)
    cpu_s: list[float]  # each rank's CPU time (the process: its threads included) of one all-reduce (median)
    max_error: float  # the largest |result − exact sum| over the ranks and repeats (whole-number inputs: 0)
    repeats: int


class AllreduceResult(TypedDict):
    rows: list[Measurement]
    timelines: dict[str, list[Phase]]  # algorithm → every rank's intervals of one all-reduce at the shown p, N
    timeline_ranks: int
    timeline_size: int
    ranks: list[int]
    sizes: list[int]
    repeats: int
    device: str
    cores: int
    load: float  # the machine's 1-minute load average when the measurement ended
    seed: int
    notes: NotRequired[list[str]]
