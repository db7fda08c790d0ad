"""A parameter server with asynchronous SGD (``studio async``, the Parallelism lab's "Async SGD" page): k workers
compute gradients on their own mini-batches and push them to a parameter server over ``torch.distributed.rpc``;
the server applies them as they arrive (async), a round at a time (sync), or with the learning rate divided by
the gradient's staleness (async-sa); Hogwild shares one model in shared memory, lock-free. Torch-free: the
request, its limits (one sentence each, before any process starts), and the result's shape.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, TypedDict

from studio.core.errors import ConfigError

# sync: the server waits for all k gradients of a round and applies their mean; async: each gradient when it
# arrives; async-sa: async with lr ÷ staleness (Zhang et al. 2016); hogwild: k processes, one shared model, no lock
MODES: tuple[str, ...] = ("sync", "async", "async-sa", "hogwild")
RPC_MODES: tuple[str, ...] = ("sync", "async", "async-sa")
LABELS: dict[str, str] = {"sync": "sync (PS, rounds of k)", "async": "async (PS)",
                          "async-sa": "async + staleness-aware lr", "hogwild": "Hogwild (shared memory)"}
MAX_WORKERS = 16
MAX_DELAY_S = 5.0
MAX_STALENESS_BINS = 64  # staleness ≥ this lands in the last bin


@dataclass(frozen=True)
class AsyncRequest:
    """Train the same MLP with ``workers`` workers in each of ``modes`` for ``updates`` applied updates (or, with
    ``updates`` 0, ``seconds`` of wall time). ``delays``: seconds each worker sleeps per gradient (missing ones
    are 0; one large value makes a straggler). ``staleness_aware`` adds the "async-sa" mode. ``port``: the rpc
    port on 127.0.0.1 (0: a free one). ``eval_every``: updates between loss snapshots (0: about 40 per mode)."""

    dataset: str = "fashion_mnist_small"
    widths: tuple[int, ...] = (128,)
    workers: int = 3
    batch_size: int = 32
    updates: int = 300
    seconds: float = 0.0
    lr: float = 0.05
    delays: tuple[float, ...] = ()
    staleness_aware: bool = False
    modes: tuple[str, ...] = ("sync", "async", "hogwild")
    seed: int = 0
    port: int = 0
    eval_every: int = 0
    device: str = "cpu"  # "cpu", or "cuda": the parameter server on cuda:0 (not run here: no GPU)

    def run_modes(self) -> tuple[str, ...]:
        """The modes in the order they run (``staleness_aware`` adds async-sa after async)."""
        wanted = set(self.modes) | ({"async-sa"} if self.staleness_aware else set())
        return tuple(m for m in MODES if m in wanted)

    def delay_of(self, worker: int) -> float:
        return self.delays[worker] if worker < len(self.delays) else 0.0


def request_to_dict(request: AsyncRequest) -> dict[str, Any]:
    return asdict(request)


def request_from_dict(values: dict[str, Any]) -> AsyncRequest:
    """The request back from ``request_to_dict`` (JSON lists become tuples again)."""
    fields: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in values.items()}
    return AsyncRequest(**fields)


def parse_delays(text: str) -> tuple[float, ...]:
    """"0,0,0.05" → (0.0, 0.0, 0.05); one sentence on anything else."""
    try:
        return tuple(float(v) for v in text.replace(";", ",").split(",") if v.strip())
    except ValueError:
        raise ConfigError(f"--delays takes seconds per gradient separated by commas, e.g. 0,0,0.05 (not {text!r})") \
            from None


def parse_modes(text: str) -> tuple[str, ...]:
    modes = tuple(m.strip().lower() for m in text.split(",") if m.strip())
    unknown = [m for m in modes if m not in MODES]
    if unknown:
        raise ConfigError(f"unknown mode {unknown[0]!r}; the modes are {', '.join(MODES)}")
    return modes


def validate(request: AsyncRequest) -> None:
    """Raise :class:`ConfigError` (one sentence) on a request that cannot run."""
    r = request
    if not 1 <= r.workers <= MAX_WORKERS:
        raise ConfigError(f"workers must be 1 to {MAX_WORKERS} (not {r.workers})")
    if r.batch_size < 1:
        raise ConfigError(f"the batch per worker must be at least 1 (not {r.batch_size})")
    if r.updates < 0 or not math.isfinite(r.seconds) or r.seconds < 0:
        raise ConfigError("updates and seconds cannot be negative")
    if r.updates == 0 and r.seconds <= 0:
        raise ConfigError("give a budget: a number of updates, or seconds of wall time")
    if r.updates > 1_000_000 or r.seconds > 3600:
        raise ConfigError("the budget is at most 1,000,000 updates or 3600 seconds")
    if not (math.isfinite(r.lr) and r.lr > 0):
        raise ConfigError(f"the learning rate must be a positive number (not {r.lr})")
    if len(r.delays) > r.workers:
        raise ConfigError(f"{len(r.delays)} delays given for {r.workers} workers; give one per worker at most")
    if any(not (math.isfinite(d) and 0 <= d <= MAX_DELAY_S) for d in r.delays):
        raise ConfigError(f"a delay is seconds per gradient from 0 to {MAX_DELAY_S:g}")
    unknown = [m for m in r.modes if m not in MODES]
    if unknown:
        raise ConfigError(f"unknown mode {unknown[0]!r}; the modes are {', '.join(MODES)}")
    if not r.run_modes():
        raise ConfigError(f"choose at least one mode of {', '.join(MODES)}")
    if r.port and not 1024 <= r.port <= 65535:
        raise ConfigError(f"the rpc port must be 1024 to 65535, or 0 for a free one (not {r.port})")
    if not r.widths or any(w < 1 for w in r.widths):
        raise ConfigError("the model's widths are positive whole numbers, e.g. 128 or 256,128")
    if r.eval_every < 0:
        raise ConfigError("eval_every cannot be negative")
    if r.device not in ("cpu", "cuda"):
        raise ConfigError(f"the device is cpu or cuda (not {r.device!r})")


class CurvePoint(TypedDict):
    update: int  # updates applied so far
    seconds: float  # wall time since the mode's start
    loss: float  # mean cross-entropy of the weights at that moment on a fixed evaluation set


class ModeResult(TypedDict):
    """One mode. In sync, one update applies the mean of k gradients (``gradients`` = k × ``updates``)."""

    mode: str
    label: str
    updates: int
    gradients: int  # gradients that were applied (sync: k per update)
    dropped: int  # gradients that arrived after the budget ended (not applied)
    seconds: float
    updates_per_s: float
    gradients_per_s: float
    curve: list[CurvePoint]
    final_loss: float
    test_acc: float
    staleness: list[int]  # histogram: counts[s] = applied gradients that were s updates old
    mean_staleness: float
    max_staleness: int
    worker_updates: list[int]  # per worker: its gradients that were applied


class AsyncResult(TypedDict):
    rows: list[ModeResult]
    dataset: str
    widths: list[int]
    workers: int
    delays: list[float]  # per worker (0 where none was given)
    batch_size: int
    lr: float
    updates: int
    seconds: float
    device: str
    cores: int
    port: int  # the rpc port used (0: no rpc mode ran)
    seed: int
