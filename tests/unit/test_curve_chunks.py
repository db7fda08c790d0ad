"""Curve chunks (core/runs/curve_chunks.py): live, imported and old runs read like packed ones — from a few blobs,
never a row per value — and exactly what the plain row query answers, whatever happened to the run."""

import sqlite3

import numpy as np
import pytest

from studio.core.config import RunConfig
from studio.core.runs import curve_cache, curve_chunks
from studio.core.runs.store import RunStore
from tests.unit.test_curve_cache import assert_same, awkward_rows, plain


def no_row_reads(monkeypatch) -> None:
    """Reading a run's rows (the slow path) fails the test."""
    def refuse(*_a, **_k):
        raise AssertionError("read as rows")

    monkeypatch.setattr(curve_cache, "rows_query", refuse)
    monkeypatch.setattr(curve_cache, "tails", refuse)


def chunk_count(store: RunStore, run_id: str) -> int:
    return store._db.execute("SELECT count(*) FROM curve_chunks WHERE run_id=?", (run_id,)).fetchone()[0]


def live_run(store: RunStore, batches: int = 300, per_batch: int = 3, seed: int = 0) -> str:
    """A running run that logged ``batches`` small batches (a step's metrics at a time), awkward ones among them."""
    rng = np.random.default_rng(seed)
    run = store.create_run(RunConfig())
    store.set_status(run.id, "running")
    for b in range(batches):
        rows = [(b * per_batch + i, name, float(rng.normal()), 1000.0 + b) for i in range(per_batch)
                for name in ("train/loss", "lr")]
        store.log_metrics(run.id, rows)
    store.log_metrics(run.id, awkward_rows(20, offset=0.5))  # steps back, a step twice, a NaN
    return run.id


def test_a_live_run_reads_from_its_chunks_exactly_as_its_rows(tmp_path, monkeypatch):
    store = RunStore(tmp_path)
    ids = [live_run(store, seed=s) for s in range(3)]
    want = plain(store, ids)
    assert chunk_count(store, ids[0]) <= 3 * curve_chunks.FAN_IN  # 301 batches merged as they came
    no_row_reads(monkeypatch)
    assert_same(store.curves(ids), want)
    assert_same(store.curves(ids, ["lr", "val/acc"]), plain_names(want, ["lr", "val/acc"]))
    assert_same(RunStore(tmp_path, read_only=True).curves(ids), want)


def plain_names(want: dict, names: list[str]) -> dict:
    return {r: {n: c for n, c in m.items() if n in names} for r, m in want.items()}


def test_packed_at_the_end_then_resumed_and_trimmed(tmp_path, monkeypatch):
    store = RunStore(tmp_path)
    run_id = live_run(store, batches=40)
    store.set_status(run_id, "finished")
    assert store.write_curve_cache(run_id)
    assert chunk_count(store, run_id) == 0  # the pack covers them: no copy kept
    store.set_status(run_id, "running")  # resumed without a trim: rows after the pack
    store.log_metrics(run_id, [(500 + i, "train/loss", float(i), 3000.0 + i) for i in range(30)])
    want = plain(store, [run_id])
    with monkeypatch.context() as m:
        no_row_reads(m)
        assert_same(store.curves([run_id]), want)
    store.truncate_metrics(run_id, 60)  # resumed from an earlier checkpoint
    store.log_metrics(run_id, [(61, "train/loss", 7.0, 4000.0)])
    want = plain(store, [run_id])
    no_row_reads(monkeypatch)
    assert_same(store.curves([run_id]), want)
    overview = store.curve_overviews([run_id])[run_id]["train/loss"]
    full = store.curves([run_id])[run_id]["train/loss"]
    whole = curve_cache.Columns(full.steps, full.values, full.walls)
    assert np.array_equal(overview.steps, curve_cache.overview(whole).steps)


def old_store_run(store: RunStore, status: str) -> str:
    """A run as a store before chunks has it: rows only (its chunks and its listing dropped)."""
    run_id = live_run(store, batches=30)
    curve_chunks.forget(store._db, run_id)
    store._db.commit()
    store.set_status(run_id, status)
    return run_id


def test_an_old_store_is_converted_in_the_background_with_progress(tmp_path, monkeypatch):
    store = RunStore(tmp_path)
    ids = [old_store_run(store, "running"), old_store_run(store, "interrupted"), live_run(store, batches=5)]
    want = plain(store, ids)
    seen: list[tuple[int, int]] = []
    assert store.convert_curves(lambda done, total: seen.append((done, total))) == 3  # a pack, two chunkings
    assert seen == [(1, 3), (2, 3), (3, 3)]
    assert store.convert_curves() == 0  # once
    no_row_reads(monkeypatch)
    assert_same(store.curves(ids), want)


def test_an_old_run_is_converted_the_first_time_it_is_read_or_logs(tmp_path, monkeypatch):
    store = RunStore(tmp_path)
    read, logs = old_store_run(store, "running"), old_store_run(store, "running")
    assert_same(store.curves([read]), plain(store, [read]))  # read as rows once, converted meanwhile
    store.log_metrics(logs, [(10_000, "train/loss", 1.0, 9.0)])  # its older rows chunked before the new one
    assert curve_chunks.chunked(store._db, [read, logs]) == {read, logs}
    want = plain(store, [read, logs])
    no_row_reads(monkeypatch)
    assert_same(store.curves([read, logs]), want)


def test_a_database_rebuilt_from_the_run_folders_reads_the_same(tmp_path):
    store = RunStore(tmp_path)
    ids = [live_run(store, batches=20, seed=s) for s in range(2)]
    want = plain(store, ids)
    store.close()
    for extra in ("runs.db", "runs.db-wal", "runs.db-shm"):
        (tmp_path / extra).unlink(missing_ok=True)
    rebuilt = RunStore(tmp_path)
    got = rebuilt.curves(ids)
    assert {r: set(m) for r, m in got.items()} == {r: set(m) for r, m in want.items()}
    assert_same(rebuilt.curves(ids), plain(rebuilt, ids))
    assert curve_chunks.chunked(rebuilt._db, ids) == set(ids)


def test_a_deleted_run_leaves_no_chunk(tmp_path):
    store = RunStore(tmp_path)
    run_id = live_run(store, batches=10)
    store.set_status(run_id, "failed")
    store.delete(run_id)
    db = sqlite3.connect(store.db_path)
    assert db.execute("SELECT count(*) FROM curve_chunks").fetchone()[0] == 0
    assert db.execute("SELECT count(*) FROM curve_chunked").fetchone()[0] == 0


@pytest.mark.parametrize("batches", [1, curve_chunks.FAN_IN, curve_chunks.FAN_IN ** 2 + 3])
def test_merging_keeps_few_chunks_and_every_point(tmp_path, batches):
    store = RunStore(tmp_path)
    run_id = live_run(store, batches=batches, per_batch=1)
    levels = [lv for (lv,) in store._db.execute("SELECT level FROM curve_chunks WHERE run_id=? ORDER BY upto_rowid",
                                                (run_id,))]
    assert levels == sorted(levels, reverse=True)  # older chunks are the merged ones
    assert all(levels.count(lv) < curve_chunks.FAN_IN for lv in set(levels))
    total = store._db.execute("SELECT sum(count) FROM curve_chunks WHERE run_id=?", (run_id,)).fetchone()[0]
    assert total == store._db.execute("SELECT count(*) FROM metrics WHERE run_id=?", (run_id,)).fetchone()[0]


def test_a_chunked_run_is_packed_from_its_chunks_not_its_rows(tmp_path, monkeypatch):
    store = RunStore(tmp_path)
    run_id = live_run(store, batches=50)
    store.set_status(run_id, "finished")
    want = plain(store, [run_id])
    with monkeypatch.context() as m:
        no_row_reads(m)
        assert store.write_curve_cache(run_id)
    assert chunk_count(store, run_id) == 0
    packed = curve_cache.read(store._db, [run_id], None)
    assert_same({run_id: {n: c for (_r, n), c in packed.items()}}, want)


def test_rows_an_older_studio_adds_or_removes_are_not_missed(tmp_path):
    """An older Studio sharing the store writes rows with no chunk (and deletes rows without touching chunks):
    the run is read as its rows from then on, and chunked again the next time this version logs."""
    store = RunStore(tmp_path)
    run_id = live_run(store, batches=20)
    older = sqlite3.connect(tmp_path / "runs.db")  # what an older version's RunStore does: plain rows
    with older:
        older.executemany("INSERT INTO metrics (run_id, step, name, value, wall) VALUES (?,?,?,?,?)",
                          [(run_id, 1000 + i, "train/loss", 0.5, 2000.0) for i in range(5)])
    assert_same(store.curves([run_id]), plain(store, [run_id]))
    assert 1004 in store.curves([run_id])[run_id]["train/loss"].steps
    store.log_metrics(run_id, [(2000, "train/loss", 0.25, 3000.0)])  # this version logs: chunked again
    assert curve_chunks.chunked(store._db, [run_id]) == {run_id}
    assert_same(store.curves([run_id]), plain(store, [run_id]))
    with older:
        older.execute("DELETE FROM metrics WHERE run_id=? AND step>=1000", (run_id,))
    older.close()
    assert_same(store.curves([run_id]), plain(store, [run_id]))
    assert 2000 not in store.curves([run_id])[run_id]["train/loss"].steps


def test_two_writers_of_one_run_never_drop_each_others_chunks(tmp_path, monkeypatch):
    """Two ranks logging into one run (two connections): while one converts the run (reads its rows, then
    replaces its chunks), the other cannot commit in between, so the pack built from the chunks has both."""
    import threading

    from studio.core.host import fault_points

    first, second = RunStore(tmp_path), RunStore(tmp_path)
    run = first.create_run(RunConfig())
    first.set_status(run.id, "running")
    other = threading.Thread(target=second.log_metrics,
                             args=(run.id, [(s, "rank1/loss", 1.0 / (s + 1), 1.0) for s in range(50)]))
    real = fault_points.reached

    def meanwhile(point: str) -> None:  # the other rank logs its first batch between this one's read and write
        if point == "curve.convert.read" and not other.is_alive() and other.ident is None:
            other.start()
            other.join(0.5)  # it finishes here only if this rank holds no write lock yet (the bug)
        real(point)

    monkeypatch.setattr(fault_points, "reached", meanwhile)
    first.log_metrics(run.id, [(s, "rank0/loss", 2.0 / (s + 1), 1.0) for s in range(50)])  # its first: converts
    other.join(60)
    first.set_status(run.id, "finished")
    assert first.write_curve_cache(run.id)
    curves = RunStore(tmp_path).curves([run.id])[run.id]
    assert {n: len(c.steps) for n, c in curves.items()} == {"rank0/loss": 50, "rank1/loss": 50}
