"""An older store's curves are converted once the window shows, in a thread of their own, with their progress on
the status bar (gui/session/curve_conversion.py); closing stops it between two runs."""

from __future__ import annotations

import threading

from studio.core.runs import curve_chunks
from studio.core.runs.store import RunStore
from tests.gui.conftest import new_session
from tests.unit.test_curve_chunks import old_store_run


def test_the_window_converts_an_older_store_in_the_background(qtbot, tmp_path):
    store = RunStore(tmp_path)
    ids = [old_store_run(store, "running"), old_store_run(store, "finished"), old_store_run(store, "interrupted")]
    assert curve_chunks.chunked(store._db, ids) == set()
    session = new_session(store)
    said: list[str] = []
    session.status_text.connect(said.append)
    try:
        session.convert_old_curves()
        qtbot.waitUntil(lambda: session.conversion.result is not None and bool(said) and "ready" in said[-1],
                        timeout=30_000)
        assert session.conversion.result == (5, "")  # a pack for each ended run (none had one), then three chunkings
        assert session.conversion.worker_thread_id not in (None, threading.main_thread().ident)
        assert said[-1] == "The curves of the runs from an older Studio are ready for quick reading"
        told = len(said)
        assert curve_chunks.chunked(store._db, ids) == set(ids)
        session.convert_old_curves()  # once: the next start finds nothing to do and says nothing
        qtbot.waitUntil(lambda: session.conversion.result is not None, timeout=30_000)
        qtbot.wait(50)  # a message it would send comes through the event loop
        assert session.conversion.result == (0, "") and len(said) == told
    finally:
        session.shutdown(wait_s=5)


def test_closing_stops_the_conversion_between_two_runs(qtbot, tmp_path, monkeypatch):
    store = RunStore(tmp_path)
    ids = [old_store_run(store, "running") for _ in range(6)]
    session = new_session(store)
    convert = store.convert_curves

    def closing_after_the_first(progress):  # the window closes while the first run is converted
        def said(done: int, total: int) -> None:
            if done == 1:
                session.conversion._stop.set()
            progress(done, total)
        return convert(said)

    monkeypatch.setattr(store, "convert_curves", closing_after_the_first)
    session.convert_old_curves()
    conversion = session.conversion
    conversion.worker.join(30)
    assert conversion.result == (-1, "the window closed")
    assert len(curve_chunks.chunked(store._db, ids)) == 1  # that run stays converted; the rest waits …
    monkeypatch.setattr(store, "convert_curves", convert)
    session.convert_old_curves()
    qtbot.waitUntil(lambda: session.conversion.result is not None, timeout=30_000)
    assert session.conversion.result == (5, "")
    assert curve_chunks.chunked(store._db, ids) == set(ids)  # … for the next start
    session.shutdown(wait_s=5)


def test_a_watched_store_is_never_converted(qtbot, tmp_path):
    store = RunStore(tmp_path)
    run_id = old_store_run(store, "running")
    store.close()
    session = new_session(RunStore(tmp_path, read_only=True))
    session.convert_old_curves()
    assert session.conversion.worker is None
    assert curve_chunks.chunked(RunStore(tmp_path)._db, [run_id]) == set()
    session.shutdown(wait_s=5)


def test_a_conversion_that_fails_says_why_in_one_sentence_and_loses_nothing(qtbot, tmp_path, monkeypatch):
    from studio.core.errors import StoreError

    store = RunStore(tmp_path)
    run_id = old_store_run(store, "running")
    want = store.curves([run_id])

    def full_disk(progress):
        raise StoreError("cannot convert the curves: the disk is full")

    monkeypatch.setattr(store, "convert_curves", full_disk)
    session = new_session(store)
    said: list[str] = []
    session.status_text.connect(said.append)
    session.convert_old_curves()
    qtbot.waitUntil(lambda: bool(said), timeout=30_000)
    assert said == ["Could not prepare the older runs' curves for quick reading (cannot convert the curves: the disk "
                    "is full); they are read as before, more slowly"]
    assert set(store.curves([run_id])[run_id]) == set(want[run_id]) != set()  # read as rows, as before
    session.shutdown(wait_s=5)
