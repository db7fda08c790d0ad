"""The packed curve cache (core/runs/curve_cache.py): RunStore.curves answers exactly what the plain row query
answers, whatever happened to the run (resumed, trimmed, deleted), in read-only stores and old databases."""

import sqlite3
import threading

import numpy as np
import pytest

from studio.core.config import RunConfig
from studio.core.contracts import protocol
from studio.core.runs import curve_cache, curve_chunks
from studio.core.runs.db import MIGRATIONS
from studio.core.runs.store import RunStore
from studio.engine.loop.sinks import StoreSink


def plain(store: RunStore, run_ids, names=None) -> dict:
    """The reference: the selection's rows, straight from the metrics table."""
    db = sqlite3.connect(store.db_path)
    sql, args = curve_cache.rows_query(list(run_ids), None if names is None else list(names))
    out: dict = {r: {} for r in run_ids}
    for (run_id, name), cols in curve_cache.gather(db.execute(sql, args)).items():
        out[run_id][name] = cols
    db.close()
    return out


def assert_same(got: dict, want: dict) -> None:
    assert got.keys() == want.keys()
    for run_id in want:
        assert got[run_id].keys() == want[run_id].keys(), run_id
        for name, w in want[run_id].items():
            g = got[run_id][name]
            assert g.steps.dtype == np.int64 and g.values.dtype == g.walls.dtype == np.float64
            assert g.steps.tobytes() == w.steps.tobytes(), (run_id, name)
            assert np.array_equal(g.values, w.values, equal_nan=True), (run_id, name)
            assert np.array_equal(g.walls, w.walls, equal_nan=True), (run_id, name)


def cached(store: RunStore) -> set:
    return set(sqlite3.connect(store.db_path).execute("SELECT run_id, name FROM curve_cache").fetchall())


def awkward_rows(n: int, offset: float = 0.0) -> list:
    """Two metrics, steps logged out of order, a step logged twice, a NaN, a None wall."""
    rows = [(s, "train/loss", 1.0 / (s + 1) + offset, 1000.0 + s) for s in range(n)]
    rows += [(s, "val/acc", s * 0.01 + offset, 2000.0 + s) for s in range(n - 1, -1, -5)]
    rows += [(3, "train/loss", 42.0, 5.0), (4, "val/acc", float("nan"), 6.0)]
    return rows


def ended_run(store: RunStore, n: int = 50, status: str = "finished") -> str:
    run = store.create_run(RunConfig())
    store.set_status(run.id, "running")
    store.log_metrics(run.id, awkward_rows(n))
    store._db.execute("UPDATE metrics SET wall=NULL WHERE run_id=? AND step=7", (run.id,))  # an old row
    curve_chunks.forget(store._db, run.id)  # rows edited behind the store's back: its chunks go (converted again)
    store._db.commit()
    store.set_status(run.id, status)
    return run.id


def test_an_ended_run_is_cached_and_read_back_exactly(tmp_path):
    store = RunStore(tmp_path)
    done, failed = ended_run(store), ended_run(store, 30, "failed")
    live = store.create_run(RunConfig()).id
    store.set_status(live, "running")
    store.log_metrics(live, awkward_rows(20))
    assert cached(store) == set()
    got = store.curves([done, failed, live])  # the first read makes the ended runs' caches
    assert {r for r, _ in cached(store)} == {done, failed}  # never the live one
    assert_same(got, plain(store, [done, failed, live]))
    assert_same(store.curves([done, failed, live]), plain(store, [done, failed, live]))  # from the cache now
    assert_same(store.curves([live, done], ["val/acc"]), plain(store, [live, done], ["val/acc"]))
    assert store.curves([done], ["nothing"]) == {done: {}}
    assert len(got[done]["train/loss"]) == 51 and np.isnan(got[done]["val/acc"].values).sum() == 1


def test_rank_zero_packs_the_curves_when_the_run_ends(tmp_path):
    store = RunStore(tmp_path)
    run = store.create_run(RunConfig())
    sink = StoreSink(store)
    sink.send(protocol.status(run.id, "running"))
    sink.send(protocol.metrics(run.id, awkward_rows(10), step=10, total_steps=10, epoch=1, epochs=1))
    assert cached(store) == set()
    sink.send(protocol.status(run.id, "finished", summary={}))
    assert cached(store) == {(run.id, "train/loss"), (run.id, "val/acc")}
    assert_same(store.curves([run.id]), plain(store, [run.id]))


def test_rows_logged_after_the_cache_are_merged_in(tmp_path):
    store = RunStore(tmp_path)
    run_id = ended_run(store)
    store.curves([run_id])
    upto = curve_cache.cached_runs(store._db, [run_id])
    assert upto[1] == {}  # nothing logged after it yet
    store.log_metrics(run_id, [(10, "train/loss", -1.0, 1.0), (60, "train/loss", 0.5, 1.0), (2, "new", 3.0, 1.0)])
    assert curve_cache.cached_runs(store._db, [run_id]) == (upto[0], upto[0])  # the cache stays, flagged
    got = store.curves([run_id])
    assert_same(got, plain(store, [run_id]))
    loss = got[run_id]["train/loss"]
    assert list(loss.values[loss.steps == 10]) == [1.0 / 11, -1.0]  # equal steps keep the order they were logged
    overview = store.curve_overviews([run_id])[run_id]
    assert -1.0 in overview["train/loss"].values and list(overview["new"].steps) == [2]


def test_a_trim_or_a_delete_drops_the_cache(tmp_path):
    store = RunStore(tmp_path)
    run_id, other = ended_run(store), ended_run(store)
    store.curves([run_id, other])
    store.truncate_metrics(run_id, 20)  # a resume from the checkpoint at step 20
    assert {r for r, _ in cached(store)} == {other}
    store.set_status(run_id, "running")
    store.log_metrics(run_id, [(21, "train/loss", 7.0, 0.0), (22, "train/loss", 8.0, 0.0)])
    assert_same(store.curves([run_id]), plain(store, [run_id]))  # live: rows, no cache
    assert {r for r, _ in cached(store)} == {other}
    store.set_status(run_id, "finished")
    got = store.curves([run_id, other])
    assert_same(got, plain(store, [run_id, other]))
    assert got[run_id]["train/loss"].steps.max() == 22 and 42.0 in got[run_id]["train/loss"].values
    store.delete(other)
    assert {r for r, _ in cached(store)} == {run_id}
    assert store.curves([other]) == {other: {}}


def test_a_read_only_store_reads_without_writing_a_cache(tmp_path):
    store = RunStore(tmp_path)
    run_id = ended_run(store)
    reader = RunStore(tmp_path, read_only=True)
    assert_same(reader.curves([run_id]), plain(store, [run_id]))
    assert cached(store) == set()
    store.curves([run_id])  # a writer made it: the reader uses it
    assert_same(reader.curves([run_id]), plain(store, [run_id]))
    assert reader.curve_overviews([run_id])[run_id]["train/loss"].steps[-1] == 49


def old_database(home) -> str:
    """A store as the version before the cache left it (user_version 1, no curve_cache table)."""
    store = RunStore(home)
    run_id = ended_run(store)
    store.close()
    db = sqlite3.connect(store.db_path)
    db.execute("DROP TABLE curve_cache")
    db.execute("PRAGMA user_version=1")
    db.commit()
    db.close()
    return run_id


def test_an_old_database_migrates_and_a_read_only_one_reads_rows(tmp_path):
    run_id = old_database(tmp_path)
    reader = RunStore(tmp_path, read_only=True)  # cannot migrate: reads rows
    assert not curve_cache.exists(reader._db)
    want = plain(reader, [run_id])
    assert_same(reader.curves([run_id]), want)
    assert_same(reader.curve_overviews([run_id]), want)  # short curves: the overview is the whole curve
    store = RunStore(tmp_path)
    assert store._db.execute("PRAGMA user_version").fetchone()[0] == MIGRATIONS[-1][0] >= 2
    assert_same(store.curves([run_id]), want)
    assert {r for r, _ in cached(store)} == {run_id}


def test_a_rebuilt_database_makes_its_cache_again(tmp_path):
    store = RunStore(tmp_path)
    run_id = ended_run(store, status="stopped")
    store._db.execute("DELETE FROM metrics WHERE wall IS NULL")  # metrics.csv still has them; rows differ
    store._db.commit()
    store.curves([run_id])
    store.close()
    store.db_path.write_bytes(b"this is not a database" * 100)
    again = RunStore(tmp_path)
    assert again.recovery is not None and cached(again) == set()
    got = again.curves([run_id])
    assert_same(got, plain(again, [run_id]))
    loss = got[run_id]["train/loss"]  # metrics.csv keeps the last value of a step logged twice
    assert len(loss) == 50 and loss.walls[loss.steps == 7][0] == 1007.0 and loss.values[3] == 42.0
    assert cached(again) == {(run_id, "train/loss"), (run_id, "val/acc")}


def test_the_queries_use_the_indexes(tmp_path):
    store = RunStore(tmp_path)

    def plan(sql: str, args: list) -> str:
        return " | ".join(row[-1] for row in store._db.execute("EXPLAIN QUERY PLAN " + sql, args))

    for names in (None, ["train/loss", "val/acc"]):
        sql, args = curve_cache.rows_query(["a", "b", "c"], names)
        assert "USING INDEX metrics_by_run" in plan(sql, args) and "TEMP B-TREE" not in plan(sql, args)
        sql, args = curve_cache.rows_query(["a"], names, after_rowid=True)
        assert "USING INDEX metrics_by_run" in plan(sql, args + [5]) and "TEMP B-TREE" not in plan(sql, args + [5])
    read = "SELECT run_id, name, vals FROM curve_cache WHERE run_id IN (?,?) AND name IN (?)"
    assert "USING INDEX sqlite_autoindex_curve_cache_1" in plan(read, ["a", "b", "x"])


@pytest.mark.parametrize("status", ["finished", "running"])
def test_a_reader_sees_whole_batches_while_a_writer_appends(tmp_path, status):
    store = RunStore(tmp_path)
    run_id = ended_run(store, status=status)
    store.curves([run_id])
    batches, size, seen, errors = 40, 25, [], []

    def write() -> None:
        writer = RunStore(tmp_path)  # its own connection, as another thread or process has
        try:
            for b in range(batches):
                writer.log_metrics(run_id, [(100 + b * size + i, "train/loss", float(b), 0.0) for i in range(size)])
        except Exception as err:  # noqa: BLE001 - reported by the test below
            errors.append(err)
        finally:
            writer.close()

    thread = threading.Thread(target=write)
    thread.start()
    while thread.is_alive():
        try:
            loss = store.curves([run_id], ["train/loss"])[run_id]["train/loss"]
        except Exception as err:  # noqa: BLE001
            errors.append(err)
            break
        seen.append(len(loss))
        assert np.all(np.diff(loss.steps) >= 0)
    thread.join()
    assert not errors
    assert all((n - 51) % size == 0 for n in seen) and seen == sorted(seen)  # whole batches, never fewer
    assert_same(store.curves([run_id]), plain(store, [run_id]))
    assert len(store.curves([run_id])[run_id]["train/loss"]) == 51 + batches * size


def test_a_reader_never_mixes_a_cache_with_a_trim_made_meanwhile(tmp_path):
    store = RunStore(tmp_path)
    run_id = ended_run(store)
    full = len(plain(store, [run_id])[run_id]["train/loss"].steps)
    redo = [(s, "train/loss", 1.0 / (s + 1), 1000.0 + s) for s in range(21, 50)]
    stop, errors, seen = threading.Event(), [], set()

    def trim_and_redo() -> None:  # a resume from step 20, again and again, each end packing the curves anew
        writer = RunStore(tmp_path)
        try:
            while not stop.is_set():
                writer.truncate_metrics(run_id, 20)
                writer.log_metrics(run_id, redo)
                writer.write_curve_cache(run_id)
        except Exception as err:  # noqa: BLE001 - reported by the test below
            errors.append(err)
        finally:
            writer.close()

    thread = threading.Thread(target=trim_and_redo)
    thread.start()
    try:
        for _ in range(300):
            loss = store.curves([run_id], ["train/loss"])[run_id]["train/loss"]
            seen.add(len(loss))
            assert loss.steps[0] == 0 and np.all(np.diff(loss.steps) >= 0)
    finally:
        stop.set()
        thread.join()
    assert not errors
    assert seen <= {full, full - 29}  # the whole run, or the run trimmed at step 20: nothing in between


def test_overviews_are_the_same_stored_or_computed(tmp_path):
    store = RunStore(tmp_path)
    run = store.create_run(RunConfig())
    rng = np.random.default_rng(3)
    values = rng.normal(size=10_000)
    values[7_777] = 50.0  # one spike
    store.log_metrics(run.id, [(s, "train/loss", float(v), float(s)) for s, v in enumerate(values)])
    computed = store.curve_overviews([run.id])  # queued: from the rows
    assert cached(store) == set()
    store.set_status(run.id, "finished")
    store.curves([run.id])
    stored = store.curve_overviews([run.id])  # from the cache
    assert cached(store) == {(run.id, "train/loss")}
    assert_same(stored, computed)
    loss = stored[run.id]["train/loss"]
    assert len(loss) <= 4 * curve_cache.OVERVIEW_COLUMNS + 2 < 10_000
    assert loss.values.max() == 50.0 and loss.values.min() == values.min() and 7_777 in loss.steps
    assert np.array_equal(loss.walls, loss.steps.astype(float))  # each point keeps its own wall time
