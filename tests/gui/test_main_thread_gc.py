"""Cyclic garbage is collected on the window's thread, never on a worker thread that happens to allocate
(gui/session/main_thread_gc.py): a collection there that destroys a Qt object could deadlock with the window."""

from __future__ import annotations

import gc
import threading


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
        kept = [[i] for i in range(5_000)]  # the window's thread allocates past the threshold: its timer collects
        qtbot.waitUntil(lambda: "MainThread" in ran_on, timeout=5_000)
        assert len(kept) == 5_000 and set(ran_on) == {"MainThread"}
    finally:
        gc.callbacks.remove(record)
