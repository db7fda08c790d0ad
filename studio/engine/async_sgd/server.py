"""The parameter server (as in PyTorch's parameter-server tutorial): it holds the model and an SGD optimizer,
hands out its weights with their version, and applies the gradients workers push, under one lock.

- async: each gradient is applied as it arrives; its staleness (``ledger.Ledger``) is counted;
- async-sa: the same with α/τ (Zhang et al. 2016);
- sync: the server waits for all k gradients of a round, applies their mean, then releases the k workers
  (a parameter-server barrier rather than a gloo all-reduce, so the three modes share one server, one set of
  processes, one clock and one staleness ledger; an all-reduce would compute the same mean).

The modes run one after another in the same processes (the start-up is paid once), each from the same initial
weights. Workers call the module functions :func:`wait_phase`, :func:`pull` and :func:`push` over rpc; they
reach the one :class:`ParameterServer` of this process (``SERVER``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from studio.core.contracts.async_sgd import AsyncRequest
from studio.engine.async_sgd.ledger import Ledger, Schedule, staleness_lr
from studio.engine.async_sgd.model import build, load_weights, snapshot

SNAPSHOTS = 40  # loss points per mode at regular intervals (and more early on: ``ledger.Schedule``)


def schedule(request: AsyncRequest) -> Schedule:
    if request.updates:
        return Schedule(every=request.eval_every or max(1, request.updates // SNAPSHOTS))
    return Schedule(every=request.eval_every, every_s=request.seconds / SNAPSHOTS)


class ParameterServer:
    def __init__(self, request: AsyncRequest, data: Any, device: str = "cpu") -> None:
        self.request = request
        self.k = request.workers
        self.device = device
        self.model = build(data, request.widths, request.seed, device)
        self.initial = snapshot(self.model)
        self.cond = threading.Condition()
        self.phase, self.mode, self.active, self.finished = -1, "", False, False
        self.left: set[int] = set()  # workers waiting for the next phase
        self.ledger = Ledger(self.k)
        self.round: list[list[Any]] = []
        self.snapshots: list[tuple[int, float, list[Any]]] = []
        self.t0 = self.elapsed = 0.0
        self.dropped = 0
        self.opt: Any = None
        self.schedule = schedule(request)

    # --- the orchestration (the server's main thread) -------------------------------------------------------
    def start_phase(self, index: int, mode: str) -> None:
        import torch

        with self.cond:
            load_weights(self.model, self.initial)
            self.opt = torch.optim.SGD(self.model.parameters(), lr=self.request.lr)
            self.ledger, self.round, self.dropped = Ledger(self.k), [], 0
            self.snapshots = [(0, 0.0, snapshot(self.model))]
            self.phase, self.mode, self.active, self.left = index, mode, True, set()
            self.schedule = schedule(self.request)
            self.t0 = time.perf_counter()
            self.cond.notify_all()

    def wait_all_waiting(self, report: Callable[[float], None] | None = None, poll_s: float = 0.5) -> None:
        """Until the phase has ended and every worker waits for the next one (``report(fraction)`` meanwhile)."""
        with self.cond:
            while not (not self.active and len(self.left) == self.k):
                self.cond.wait(poll_s)
                if report and self.active:
                    report(self._fraction())

    def finish(self) -> None:
        with self.cond:
            self.finished = True
            self.cond.notify_all()

    def stats(self) -> dict[str, Any]:
        return {"mode": self.mode, "updates": self.ledger.version, "gradients": self.ledger.applied,
                "dropped": self.dropped, "seconds": self.elapsed, "staleness": self.ledger.histogram(),
                "mean_staleness": self.ledger.mean, "max_staleness": self.ledger.max_staleness,
                "worker_updates": list(self.ledger.per_worker), "snapshots": self.snapshots}

    # --- what workers call (rpc handler threads) ------------------------------------------------------------
    def wait_phase(self, worker: int, last: int) -> tuple[int, str]:
        with self.cond:
            if last == self.phase:
                self.left.add(worker)
                self.cond.notify_all()
            self.cond.wait_for(lambda: self.finished or self.phase > last)
            return (-1, "") if self.finished else (self.phase, self.mode)

    def pull(self) -> tuple[int, list[Any]]:
        with self.cond:
            if not self.active:
                return -1, []
            return self.ledger.version, snapshot(self.model)

    def push(self, worker: int, version: int, grads: list[Any]) -> bool:
        """Apply (or, in sync, contribute) one gradient; True when the phase is over."""
        with self.cond:
            if not self.active:
                self.dropped += 1
                return True
            if self.mode == "sync":
                mine = self.ledger.version
                self.ledger.record(worker, version)
                self.round.append(grads)
                if len(self.round) == self.k:
                    mean = [sum(gs) / self.k for gs in zip(*self.round, strict=True)]
                    self.round = []
                    self._apply(mean, self.request.lr)
                else:
                    self.cond.wait_for(lambda: self.ledger.version > mine or not self.active)
                return not self.active
            tau = self.ledger.record(worker, version)
            self._apply(grads, staleness_lr(self.request.lr, tau, self.mode == "async-sa"))
            return not self.active

    # --- inside the lock --------------------------------------------------------------------------------------
    def _apply(self, grads: list[Any], lr: float) -> None:
        for p, g in zip(self.model.parameters(), grads, strict=True):
            p.grad = g.to(p.device)
        for group in self.opt.param_groups:
            group["lr"] = lr
        self.opt.step()
        version = self.ledger.advance()
        t = time.perf_counter() - self.t0
        r = self.request
        over = (r.updates and version >= r.updates) or (not r.updates and t >= r.seconds)
        if self.schedule.due(version, t) or over:
            self.snapshots.append((version, t, snapshot(self.model)))
        if over:
            self.active, self.elapsed = False, t
        self.cond.notify_all()

    def _fraction(self) -> float:
        r = self.request
        if r.updates:
            return min(1.0, self.ledger.version / r.updates)
        return min(1.0, (time.perf_counter() - self.t0) / r.seconds)


SERVER: ParameterServer | None = None


def _server() -> ParameterServer:
    if SERVER is None:
        raise RuntimeError("no parameter server in this process")
    return SERVER


def wait_phase(worker: int, last: int) -> tuple[int, str]:
    """rpc: block until the phase after ``last`` starts: ``(index, mode)``, or ``(-1, "")`` when all are done."""
    return _server().wait_phase(worker, last)


def pull() -> tuple[int, list[Any]]:
    """rpc: ``(version, weights)``, or ``(-1, [])`` once the phase has ended."""
    return _server().pull()


def push(worker: int, version: int, grads: list[Any]) -> bool:
    """rpc: apply a gradient computed on ``version``; True when the phase is over."""
    return _server().push(worker, version, grads)
