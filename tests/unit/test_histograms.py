"""Weight and gradient histograms per layer (issue 22 point 8): a tiny real run on the CPU records them every
``train.histogram_every`` steps into the run folder, the reader gives them back, and the recorder is off at 0."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from studio.core.config import RunConfig
from studio.core.contracts import layout
from studio.core.runs import histograms
from tests.unit.landscape_runs import train_run

TINY_CNN = ["data.name=fashion_mnist_small", "model.name=cnn", "model.filters=4,4", "model.dense=16",
            "train.epochs=1", "train.batch_size=1000", "train.histogram_every=3", "train.trajectory_snapshots=false"]


def test_summarise_bins_every_value_between_min_and_max():
    import torch

    from studio.engine.callbacks.histograms import summarise

    values = torch.tensor([0.0, 1.0, 1.0, 2.0, 3.0])
    row = summarise(values, bins=3).tolist()
    assert row[:5] == [0.0, 3.0, 5.0, 7.0, 15.0]
    assert row[5:] == [1.0, 2.0, 2.0]  # [0,1) [1,2) [2,3]
    const = summarise(torch.full((4,), 0.5), bins=3).tolist()
    assert const[:3] == [0.5, 0.5, 4.0] and sum(const[5:]) == 4


def test_records_cover_every_trainable_tensor_with_its_gradient():
    import torch

    from studio.engine.callbacks.histograms import records_of

    net = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    net[0].bias.requires_grad_(False)
    net(torch.randn(5, 3)).sum().backward()
    recs = records_of(net, 7)
    names = [(r["name"], r["kind"]) for r in recs]
    assert names == [("0.weight", "weight"), ("0.weight", "grad"), ("2.weight", "weight"), ("2.weight", "grad"),
                     ("2.bias", "weight"), ("2.bias", "grad")]
    for r in recs:
        assert r["step"] == 7 and len(r["counts"]) == histograms.BINS and sum(r["counts"]) == r["num"]
    assert recs[0]["shape"] == [4, 3] and recs[0]["num"] == 12 and recs[0]["min"] == float(net[0].weight.detach().min())


@pytest.fixture(scope="module")
def tiny_cnn(tmp_path_factory) -> Path:
    return train_run(tmp_path_factory.mktemp("hist"), TINY_CNN)


def test_a_tiny_cnn_run_records_histograms_per_layer(tiny_cnn):
    run_dir = tiny_cnn
    records = histograms.read(run_dir)
    assert layout.histograms_path(run_dir).name == "histograms.jsonl"
    # 9000 training images / 1000 per batch = 9 steps: histograms before steps 0, 3 and 6
    by = histograms.series(records)
    layers = histograms.layers(records)
    net_names = [n for n, _ in _cnn_parameters()]
    assert layers == net_names
    for name in layers:
        for kind in histograms.KINDS:
            s = by[(name, kind)]
            assert s.steps == [0, 3, 6]
            assert all(len(c) == histograms.BINS for c in s.counts)
            assert len({sum(c) for c in s.counts}) == 1  # every histogram counts every value of the tensor
            assert all(lo <= hi for lo, hi in zip(s.lows, s.highs, strict=True))
    first = by[(layers[0], "weight")]
    assert sum(first.counts[0]) == int(np.prod(dict(_cnn_parameters())[layers[0]]))
    assert first.counts[0] != first.counts[-1] or first.lows[0] != first.lows[-1]  # the weights moved
    dens, low, high = first.density(bins=40)
    assert dens.shape == (3, 40) and low < high and np.allclose(dens.sum(axis=1), 1.0)


def test_a_half_written_line_is_skipped(tmp_path):
    rec: histograms.HistogramRecord = {"step": 0, "name": "w", "kind": "weight", "min": 0.0, "max": 1.0, "num": 2,
                                       "sum": 1.0, "sum_sq": 1.0, "counts": [1, 1]}
    histograms.append(tmp_path, [rec])
    with open(layout.histograms_path(tmp_path), "a", encoding="utf-8") as fh:
        fh.write('{"step": 5, "na')
    assert histograms.read(tmp_path) == [rec]
    assert histograms.read(tmp_path / "missing") == []
    first, offset = histograms.read_from(tmp_path, 0)
    assert first == [rec] and histograms.read_from(tmp_path, offset) == ([], offset)  # the partial line waits
    with open(layout.histograms_path(tmp_path), "a", encoding="utf-8") as fh:
        fh.write('me": "w", "kind": "grad", "min": 0, "max": 1, "num": 2, "sum": 1, "sum_sq": 1, "counts": [2, 0]}\n')
    later, end = histograms.read_from(tmp_path, offset)
    assert [r["step"] for r in later] == [5] and end == layout.histograms_path(tmp_path).stat().st_size


def test_a_step_recorded_again_after_a_resume_keeps_its_later_record():
    def rec(step: int, low: float) -> histograms.HistogramRecord:
        return {"step": step, "name": "w", "kind": "weight", "min": low, "max": 1.0, "num": 1, "sum": 0.0,
                "sum_sq": 0.0, "counts": [1]}

    s = histograms.series([rec(0, 0.0), rec(10, 0.1), rec(20, 0.2), rec(10, 0.5), rec(20, 0.6), rec(30, 0.7)])
    assert s[("w", "weight")].steps == [0, 10, 20, 30] and s[("w", "weight")].lows == [0.0, 0.5, 0.6, 0.7]


def test_the_recorder_is_on_by_default_and_off_at_zero():
    from studio.engine.callbacks.histograms import HistogramRecorder, histogram_callbacks

    assert [type(c) for c in histogram_callbacks(RunConfig(), "/tmp/run")] == [HistogramRecorder]
    assert RunConfig().train.histogram_every == 100
    assert histogram_callbacks(RunConfig().with_overrides(["train.histogram_every=0"]), "/tmp/run") == []


def _cnn_parameters() -> list[tuple[str, tuple[int, ...]]]:
    from studio.core.models import MODELS

    net = MODELS.build("cnn", input_shape=(1, 28, 28), num_classes=10, filters=[4, 4], kernel=3, dense=16,
                       dropout=0.2)
    return [(n, tuple(p.shape)) for n, p in net.named_parameters()]


def test_tensorboard_export_writes_the_histograms_that_tensorboard_reads(tiny_cnn, tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from studio.core.runs.store import RunStore
    from studio.engine.tasks.export import export_tensorboard

    store = RunStore(tiny_cnn.parent.parent)
    try:
        result = export_tensorboard(store, tiny_cnn.name, tmp_path / "tb")
    finally:
        store.close()
    records = histograms.read(tiny_cnn)
    assert result["histograms"] == len(records) > 0
    events = EventAccumulator(result["path"], size_guidance={"histograms": 0})
    events.Reload()
    tags = set(events.Tags()["histograms"])
    layers = histograms.layers(records)
    assert tags == {f"{k}/{n}" for n in layers for k in ("weights", "gradients")}
    read = events.Histograms(f"weights/{layers[0]}")
    ours = histograms.series(records)[(layers[0], "weight")]
    assert [e.step for e in read] == ours.steps
    first = read[0].histogram_value
    assert first.num == sum(ours.counts[0]) and first.min == pytest.approx(ours.lows[0])
    assert list(first.bucket) == ours.counts[0]
    assert first.bucket_limit[-1] == pytest.approx(ours.highs[0])
