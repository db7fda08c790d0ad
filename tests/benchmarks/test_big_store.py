"""The scale benchmark's store generator (big_store.py): the run store holds what it should, and TensorBoard's own
event-file loader reads back the event files it writes without it (CRCs, protobuf), value for value."""

from __future__ import annotations

import numpy as np
import pytest

from tests.benchmarks import big_store


def test_store_and_event_files_hold_the_same_curves(tmp_path):
    pytest.importorskip("tensorboard")
    from tensorboard.backend.event_processing.event_file_loader import EventFileLoader

    big = big_store.build(2, 20_000, root=tmp_path, log=lambda _m: None)
    again = big_store.build(2, 20_000, root=tmp_path)
    assert again.seconds == 0.0  # found in the cache

    from studio.core.runs.store import RunStore

    store = RunStore(big.home)
    runs = store.list()
    assert [r.status for r in runs] == ["finished", "finished"]
    curves = store.curves([r.id for r in runs])
    for run in runs:
        got = curves[run.id]
        assert sorted(got) == sorted([*big_store.PER_STEP, *big_store.VAL, "epoch"])
        assert len(got["train/loss"]) == 20_000 and len(got["val/acc"]) == 200 and len(got["epoch"]) == 20
        assert sum(len(c) for c in got.values()) == big_store.rows_per_run(20_000)

        files = list((big.logdir / run.id).glob("events.out.tfevents.*"))
        assert len(files) == 1
        events = list(EventFileLoader(str(files[0])).Load())  # raises on a bad CRC or a bad record
        assert events[0].file_version == "brain.Event:2"
        read: dict[str, list[tuple[int, float, float]]] = {}
        last_step = -1
        for event in events[1:]:
            assert event.step >= last_step  # in step order, as a training run writes them
            last_step = event.step
            for value in event.summary.value:
                read.setdefault(value.tag, []).append((event.step, value.tensor.float_val[0], event.wall_time))
        for name, curve in got.items():
            steps, values, walls = map(np.asarray, zip(*read[name], strict=True))
            np.testing.assert_array_equal(steps, curve.steps)
            np.testing.assert_allclose(values, curve.values.astype(np.float32), rtol=0)
            np.testing.assert_allclose(walls, curve.walls, rtol=0)


def test_sizes_over_the_disk_budget_are_skipped_with_a_reason():
    assert big_store.too_big(200, 20_000) == ""
    reason = big_store.too_big(1000, 100_000)
    assert "skipped" in reason and "GB" in reason
