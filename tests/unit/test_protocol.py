import multiprocessing

import pytest

from studio.core.config import RunConfig
from studio.core.contracts import protocol
from studio.core.runs.store import RunStore
from studio.engine.loop.sinks import MultiSink, QueueSink, StoreSink


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


def _keys(typed_dict: type) -> tuple[set[str], set[str]]:
    """(required, optional) keys a message TypedDict declares, from its type hints."""
    from typing import get_type_hints

    declared = set(get_type_hints(typed_dict))
    assert declared == typed_dict.__required_keys__ | typed_dict.__optional_keys__
    return set(typed_dict.__required_keys__), set(typed_dict.__optional_keys__)


def test_every_builder_makes_exactly_the_keys_its_typed_dict_declares():
    from studio.core.contracts.progress import Report
    from studio.core.vocab import JobState, Metric

    plain = {  # each builder with only what it requires
        protocol.METRICS: protocol.metrics("r", [(1, Metric.TRAIN_LOSS, 0.5, 0.0)], step=1, total_steps=2, epoch=1,
                                           epochs=1),
        protocol.STATUS: protocol.status("r", JobState.RUNNING),
        protocol.PROGRESS: protocol.progress("r", Report(0.5, "half")),
        protocol.FRAME: protocol.frame("r", {"a": 1}),
        protocol.RESULT: protocol.result("r", 3),
        protocol.LOG: protocol.log("r", "hello"),
        protocol.ERROR: protocol.error("r", "it broke"),
        protocol.ARTIFACT: protocol.artifact("r", protocol.CHECKPOINT_FILE, "/x.pt"),
        protocol.JOB_ENDED: protocol.ended("r", JobState.FINISHED),
    }
    full = {  # and with every optional field the code sends
        protocol.STATUS: protocol.status("r", "finished", message="done", summary={}, step=3, total_steps=9,
                                         epochs=2, world_size=1, device="cpu"),
        protocol.ERROR: protocol.error("r", "which?", option="format", choices=["a", "b"]),
        protocol.ARTIFACT: protocol.artifact("r", "landscape", "/l.npz", step=3, epoch=1, summary={}),
        protocol.JOB_ENDED: protocol.ended("r", "failed", "why", 3, label="training"),
    }
    assert set(plain) == set(protocol.TYPES) == set(protocol.MESSAGE_TYPES)
    for kind, message in plain.items():
        required, optional = _keys(protocol.MESSAGE_TYPES[kind])
        assert {"v", "type", "run_id", "time"} <= required
        assert set(message) == required, kind
        assert message["type"] == kind and protocol.check(message) is message
        assert list(message)[:4] == ["v", "type", "run_id", "time"]  # the wire's key order
    for kind, message in full.items():
        required, optional = _keys(protocol.MESSAGE_TYPES[kind])
        assert set(message) == required | optional, kind


def test_vocab_members_travel_as_plain_strings():
    import pickle

    from studio.core.vocab import JobState, Metric

    m = protocol.metrics("r", [(1, Metric.VAL_LOSS, 0.5, 0.0)], step=1, total_steps=2, epoch=1, epochs=1)
    s = protocol.status("r", JobState.PAUSED)
    assert type(m["rows"][0][1]) is str and type(s["status"]) is str
    assert pickle.loads(pickle.dumps(m))["rows"] == [(1, "val/loss", 0.5, 0.0)]
