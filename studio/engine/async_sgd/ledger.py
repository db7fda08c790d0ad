"""The staleness bookkeeping of a parameter server, and the staleness-aware learning rate (torch-free).

A gradient's staleness is the server's version (updates applied so far) when it is applied, minus the version
the worker computed it on: 0 means no other update came in between. Zhang, Gupta, Lian & Liu 2016 (IJCAI,
"Staleness-aware Async-SGD for Distributed Deep Learning", arXiv:1511.05950) divide the learning rate by it.
"""

from __future__ import annotations

from studio.core.contracts.async_sgd import MAX_STALENESS_BINS


def staleness_lr(lr: float, staleness: int, aware: bool) -> float:
    """α, or α/τ with the staleness-aware rule (τ = 0 is a fresh gradient: α)."""
    return lr / staleness if aware and staleness > 1 else lr


class Ledger:
    """The server's version and what every applied gradient was: its staleness, its worker."""

    def __init__(self, workers: int, bins: int = MAX_STALENESS_BINS) -> None:
        self.version = 0
        self.bins = bins
        self.counts = [0] * bins
        self.per_worker = [0] * workers
        self.total_staleness = 0
        self.max_staleness = 0

    def staleness(self, computed_on: int) -> int:
        """How many updates were applied since ``computed_on`` (never negative)."""
        if computed_on > self.version:
            raise ValueError(f"a gradient computed on version {computed_on} arrived at version {self.version}")
        return self.version - computed_on

    def record(self, worker: int, computed_on: int) -> int:
        """Count one applied gradient of ``worker`` computed on version ``computed_on``; returns its staleness.
        (The version moves on with :meth:`advance`: in sync mode k gradients make one update.)"""
        tau = self.staleness(computed_on)
        self.counts[min(tau, self.bins - 1)] += 1
        self.per_worker[worker] += 1
        self.total_staleness += tau
        self.max_staleness = max(self.max_staleness, tau)
        return tau

    def advance(self) -> int:
        self.version += 1
        return self.version

    @property
    def applied(self) -> int:
        return sum(self.per_worker)

    def histogram(self) -> list[int]:
        """Counts per staleness 0 … the largest seen (trailing empty bins dropped)."""
        last = max((i for i, c in enumerate(self.counts) if c), default=-1)
        return self.counts[:last + 1]

    @property
    def mean(self) -> float:
        return self.total_staleness / self.applied if self.applied else 0.0


class Schedule:
    """When to snapshot the weights for the loss curve: densely early (updates 1, 2, 3, … growing by ``ratio``,
    so the first updates — where the modes differ most per update — are resolved) and regularly after that (every
    ``every`` updates, or every ``every_s`` seconds with a time budget)."""

    def __init__(self, every: int = 0, every_s: float = 0.0, ratio: float = 1.15) -> None:
        self.every, self.every_s, self.ratio = every, every_s, ratio
        self._geo, self._update, self._time = 1.0, every, every_s

    def due(self, update: int, seconds: float) -> bool:
        hit = False
        if update >= self._geo:
            hit = True
            while self._geo <= update:
                self._geo = max(self._geo * self.ratio, int(self._geo) + 1)
        if self.every and update >= self._update:
            hit = True
            self._update = update + self.every
        if self.every_s and seconds >= self._time:
            hit = True
            self._time = seconds + self.every_s
        return hit
