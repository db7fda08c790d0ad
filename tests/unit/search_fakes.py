"""A queue served by the real scheduler whose runs are fakes: each logs one epoch's val/acc every ``EPOCH_S``
seconds, a known function of its learning rate (best at 0.01), stops with a checkpoint when asked, and finishes
after its epochs. Searches then run in seconds, deterministically, through the real queue, scheduler and store."""

from __future__ import annotations

import math
import threading
import time
from typing import Any

from studio.core.runs.queue import Inventory
from studio.core.runs.store import RunStore
from studio.engine.training.scheduler import Scheduler

EPOCH_S = 0.06


def accuracy(lr: float, epoch: int) -> float:
    """Rises with the epochs towards a ceiling that falls with the distance of log10(lr) from −2."""
    ceiling = 0.95 - 0.15 * abs(math.log10(lr) + 2)
    return ceiling * (1 - 0.5 ** epoch)


class FakeRun:
    def __init__(self, config: Any, store: RunStore, run: Any) -> None:
        self.store, self.run_id, self.dir = store, run.id, run.dir
        self.lr, self.epochs = config.optimizer.params["lr"], config.train.epochs
        self.epoch, self.finished, self.state = 0, False, "running"
        self.next_at = time.monotonic() + EPOCH_S
        self.stopping = False
        store.set_status(run.id, "running")

    def poll(self, timeout: float = 0) -> list:
        if self.finished:
            return []
        if self.stopping:
            (self.dir / "checkpoints" / f"step_{self.epoch:07d}.pt").write_bytes(b"weights")
            self._end("stopped")
        elif time.monotonic() >= self.next_at:
            self.epoch += 1
            self.next_at += EPOCH_S
            self.store.log_metrics(self.run_id, [(self.epoch * 10, "val/acc", accuracy(self.lr, self.epoch),
                                                  time.time())])
            if self.epoch >= self.epochs:
                (self.dir / "checkpoints" / "final.pt").write_bytes(b"weights")
                self._end("finished")
        return []

    def _end(self, state: str) -> None:
        self.finished, self.state = True, state
        self.store.set_status(self.run_id, state, summary={"epochs": self.epoch})

    def stop(self) -> None:
        self.stopping = True

    def kill(self) -> None:
        self.finished = True


class FakeQueueServer:
    """``start_scheduler`` for a driver: a real Scheduler in a thread (started again once it has left), whose
    runs are ``FakeRun``s; ``cpu_slots`` runs at once."""

    def __init__(self, cpu_slots: int = 1) -> None:
        self.cpu_slots = cpu_slots
        self.thread: threading.Thread | None = None
        self.launched: list[str] = []

    def __call__(self, store: RunStore) -> None:
        if self.thread is not None and self.thread.is_alive():
            return

        def launch(config: Any, store: RunStore, run: Any) -> FakeRun:
            self.launched.append(run.id)
            return FakeRun(config, store, run)

        def serve() -> None:
            own = RunStore(store.home)
            Scheduler(own, Inventory(cpu_slots=self.cpu_slots), idle_exit_s=0.3, log=lambda _t: None,
                      launch=launch, housekeeping_s=0.01).serve()
            own.close()

        self.thread = threading.Thread(target=serve, daemon=True)
        self.thread.start()

    def join(self) -> None:
        if self.thread is not None:
            self.thread.join(10)
