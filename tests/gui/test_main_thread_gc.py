"""Cyclic garbage is collected on the window's thread, never on a worker thread that happens to allocate
(gui/session/main_thread_gc.py): a collection there that destroys a Qt object could deadlock with the window."""

from __future__ import annotations

import gc
import threading

from studio.gui.session.main_thread_gc import MainThreadGC


def test_no_collection_runs_on_a_worker_thread_and_the_window_thread_collects(qtbot):
    ran_on: list[str] = []

    def record(phase: str, _info: dict) -> None:
        if phase == "start":
            ran_on.append(threading.current_thread().name)

    gc.callbacks.append(record)
    try:
        def allocate() -> None:  # what ast.parse or the curves' loader does: many new objects, kept a while
            junk = [[i] for i in range(100_000)]
            assert len(junk) == 100_000

        worker = threading.Thread(target=allocate, name="worker")
        worker.start()
        worker.join()
        assert "worker" not in ran_on
        threshold = gc.get_threshold()
        gc.set_threshold(1, 10, 10)  # a collector made now is due at once: its timer collects, on this thread
        try:
            collector = MainThreadGC(interval_ms=10)
            kept = [[i] for i in range(100)]
            qtbot.waitUntil(lambda: "MainThread" in ran_on, timeout=5_000)
            collector.stop()
        finally:
            gc.set_threshold(*threshold)
        assert len(kept) == 100 and set(ran_on) == {"MainThread"}
    finally:
        gc.callbacks.remove(record)
