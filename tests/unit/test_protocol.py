import multiprocessing

import pytest

from studio.core.config import RunConfig
from studio.core.runs.store import RunStore
from studio.engine.jobs import protocol
from studio.engine.training.sinks import MultiSink, QueueSink, StoreSink


def test_messages_are_versioned_and_checked():
    m = protocol.metrics("r", [(1, "train/loss", 0.5, 0.0)], step=1, total_steps=10, epoch=1, epochs=2)
    assert protocol.check(m)["type"] == "metrics" and m["v"] == protocol.VERSION
    for bad in ({"v": 99, "type": "metrics"}, {"v": protocol.VERSION, "type": "gossip"}, "text"):
        with pytest.raises(ValueError):
            protocol.check(bad)
    assert set(protocol.CODE_NAMES.values()) == set(protocol.CONTROLS)


def test_store_and_queue_sinks(tmp_path):
    store = RunStore(tmp_path)
    run = store.create_run(RunConfig())
    q = multiprocessing.get_context("spawn").Queue()
    sink = MultiSink(QueueSink(q), StoreSink(store))
    sink.send(protocol.metrics(run.id, [(5, "train/loss", 0.25, 1.0)], step=5, total_steps=9, epoch=1, epochs=1))
    sink.send(protocol.status(run.id, "finished", summary={"test_acc": 0.7}))
    assert q.get(timeout=5)["rows"] == [(5, "train/loss", 0.25, 1.0)]
    assert q.get(timeout=5)["status"] == "finished"
    assert store.metrics(run.id)["train/loss"] == ([5], [0.25])
    assert store.get(run.id).summary == {"test_acc": 0.7}
    sink.send(protocol.error(run.id, "it broke"))
    assert store.get(run.id).status == "failed" and store.get(run.id).message == "it broke"


def test_queue_sink_survives_a_closed_queue():
    q = multiprocessing.get_context("spawn").Queue()
    q.close()
    sink = QueueSink(q)
    sink.send(protocol.log("r", "hello"))
    assert sink.broken


def test_drain_takes_everything_waiting_up_to_a_limit():
    from studio.engine.jobs.queues import drain

    q = multiprocessing.get_context("spawn").Queue()
    assert drain(q) == []
    for i in range(5):
        q.put(i)
    assert drain(q, first_timeout=5, each_timeout=1, limit=3) == [0, 1, 2]
    assert drain(q, first_timeout=5, each_timeout=0.5) == [3, 4]
