"""Where a worker's messages go: the parent's queue (QueueSink) and the run store (StoreSink)."""

from __future__ import annotations

from typing import Any

from studio.core.contracts.progress import ENDED
from studio.core.contracts.protocol import Received
from studio.core.errors import StudioError
from studio.core.vocab import JobState


class Sink:
    def send(self, message: Received) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def close(self) -> None:
        pass


class QueueSink(Sink):
    """Puts messages on a multiprocessing queue; a parent that went away does not stop training."""

    def __init__(self, queue: Any) -> None:
        self.queue = queue
        self.broken = False

    def send(self, message: Received) -> None:
        if self.broken:
            return
        try:
            self.queue.put(message)
        except (OSError, ValueError, EOFError, BrokenPipeError):
            self.broken = True

    def abandon(self) -> None:
        """The reader is gone: send nothing more, and let the process exit without flushing the queue
        (its feeder thread would wait forever on a full pipe nobody reads)."""
        self.broken = True
        try:
            self.queue.cancel_join_thread()
        except (AttributeError, OSError, ValueError):
            pass


class StoreSink(Sink):
    """Records metrics, status and errors in the RunStore (SQLite), so a run outlives the GUI."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self.resumed_at: int | None = None  # a resumed run's first step: rows it already holds are not redone
        self._held: set[str] | None = None

    def send(self, message: Received) -> None:
        kind, run_id = message["type"], message["run_id"]
        if kind == "metrics":
            rows = message["rows"]
            if self.resumed_at is not None and any(int(r[0]) == self.resumed_at for r in rows):
                if self._held is None:  # an epoch end redone at the checkpoint's step logged these before it
                    self._held = self.store.metric_names_at(run_id, self.resumed_at)
                rows = [r for r in rows if int(r[0]) != self.resumed_at or r[1] not in self._held]
            if rows:
                self.store.log_metrics(run_id, rows)
        elif kind == "status":
            summary = message.get("summary")
            self.store.set_status(run_id, message["status"], message.get("message"), summary)
            if message["status"] in ENDED:
                self._pack_curves(run_id)
        elif kind == "error":
            self.store.set_status(run_id, JobState.FAILED, message["message"])
            self._pack_curves(run_id)

    def _pack_curves(self, run_id: str) -> None:
        """The run ended: pack its curves for quick reading (core/runs/curve_cache.py). Only a speed-up: if the
        store cannot take it now, the first reader makes it."""
        try:
            self.store.write_curve_cache(run_id)
        except StudioError:
            pass

    def close(self) -> None:
        self.store.close()


class MultiSink(Sink):
    def __init__(self, *sinks: Sink | None) -> None:
        self.sinks = [s for s in sinks if s is not None]

    def send(self, message: Received) -> None:
        for sink in self.sinks:
            sink.send(message)

    def close(self) -> None:
        for sink in self.sinks:
            sink.close()


class NullSink(Sink):
    def send(self, message: Received) -> None:
        pass
