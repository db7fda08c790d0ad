"""Issue 33.2: every number a caption, note or label states, checked against where it comes from (the run's
files, the store, the data the run really trains on). One test per caption; the number is computed here from
its source, never copied from the caption."""

from __future__ import annotations

import re

import numpy as np
import pytest

from studio.core.config import RunConfig
from studio.core.runs import histograms
from studio.core.runs.store import RunStore
from tests.gui.conftest import new_session

MOONS = ["data.name=moons", "data.n_samples=400", "model.widths=16", "train.epochs=2", "train.batch_size=32",
         "train.histogram_every=0", "train.trajectory_snapshots=false"]


@pytest.fixture
def session(qtbot, tmp_path):
    s = new_session(RunStore(tmp_path / "store"))
    yield s
    s.shutdown(wait_s=10)


@pytest.fixture(scope="module")
def moons_run(tmp_path_factory):
    """A finished two-epoch MLP run on 400 moons points (trained in this process), in its own store."""
    from tests.unit.test_attention import train

    home = tmp_path_factory.mktemp("moons")
    store = RunStore(home)
    run = store.create_run(RunConfig().with_overrides(MOONS))
    train(run.dir, MOONS)
    store.set_status(run.id, "finished")
    return home, run.id, run.dir


def numbers(text: str) -> list[float]:
    """The numbers in ``text`` as it shows them (1,234 → 1234; −0.3 → -0.3)."""
    return [float(n.replace(",", "")) for n in re.findall(r"[−-]?\d[\d,]*\.?\d*(?:e[−-]?\d+)?",
                                                          text.replace("−", "-"))]


# --- Histograms -------------------------------------------------------------------------------------------------
def record(step: int, kind: str, low: float, high: float, num: int = 12) -> dict:
    return {"step": step, "name": "layers.0.weight", "kind": kind, "min": low, "max": high, "num": num,
            "sum": 0.0, "sum_sq": 1.0, "counts": [num // 2, num - num // 2], "shape": [3, 4]}


def test_the_histograms_caption_gives_each_kinds_own_range(qtbot, session):
    """The caption said "weights span −0.0182 to 0.0148": the gradients' range (the layer's last record)."""
    from studio.gui.tabs.histograms import HistogramsTab

    run = session.store.create_run(RunConfig())
    written = [record(0, "weight", -0.30, 0.31), record(0, "grad", -0.02, 0.015),
               record(10, "weight", -0.336, 0.323), record(10, "grad", -0.0182, 0.0148)]
    histograms.append(run.dir, written)
    tab = HistogramsTab(session)
    qtbot.addWidget(tab)
    assert tab.run_box.currentData() == run.id
    text = tab.info.text()
    weights = next(r for r in reversed(written) if r["kind"] == "weight")
    grads = next(r for r in reversed(written) if r["kind"] == "grad")
    assert f"weights span {weights['min']:.3g} to {weights['max']:.3g} at step {weights['step']}" in text
    assert f"gradients span {grads['min']:.3g} to {grads['max']:.3g} at step {grads['step']}" in text
    assert f"{weights['num']:,} values" in text and f"{histograms.BINS} bins" in text
    steps = sorted({r["step"] for r in written if r["kind"] == "weight"})
    title = tab.weights.plot.getPlotItem().titleLabel.text
    assert f"recorded at {len(steps)} steps, from {steps[0]} to {steps[-1]}" in title


# --- the yellow note under the settings (core/config/fit_check.py) -----------------------------------------------
@pytest.mark.parametrize("overrides", [["data.name=moons", "data.n_samples=300"],
                                       ["data.name=noisy_line", "model.name=linear_neuron"]])
def test_the_fit_note_counts_the_samples_a_run_trains_on(window, overrides):
    from studio.core.datasets import DATASETS
    from studio.core.targets import resolve_target

    config = RunConfig().with_overrides(overrides)
    window.session.set_config(config)
    note = window.settings.warnings.text()
    data = resolve_target(DATASETS.get(config.data.name).builder)(config.data.name, **config.data.params)
    x_train = data.split_validation(config.train.val_fraction, config.train.seed)[0]
    steps = -(-len(x_train) // config.train.batch_size)
    assert f"{len(x_train)} training samples with batch size {config.train.batch_size} give {steps} steps" in note


# --- the Data tab's counts -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("val_fraction", [0.1, 0.15, 0.33])
def test_the_data_tabs_split_counts_are_the_runs(qtbot, session, val_fraction):
    from studio.core.datasets.bundled import load_fashion_mnist_small
    from studio.gui.tabs.data import DataPreview

    session.set_param("train", "val_fraction", val_fraction)
    tab = DataPreview(session)
    qtbot.addWidget(tab)
    data = load_fashion_mnist_small()
    x_train, _, x_val, _ = data.split_validation(val_fraction, 0)
    shown = f"train {len(x_train):,} · validation {len(x_val):,} · test {len(data.x_test):,}"
    assert shown in tab.info.text()
    assert sum(tab.bar_heights()) == len(data.x_train) + len(data.x_test)


# --- Landscape and sharpness ---------------------------------------------------------------------------------------
def test_the_landscape_caption_says_the_samples_it_used_and_its_losses(qtbot, moons_run):
    from studio.core.landscape import io
    from studio.engine.replay import RunData
    from studio.engine.tasks.landscape import compute_landscape
    from studio.gui.tabs.landscape import LandscapeTab

    home, run_id, run_dir = moons_run
    asked = 5000  # more than the test split has
    result, path = compute_landscape(run_dir, "2d", resolution=3, samples=asked, split="test", device="cpu")
    line, line_path = compute_landscape(run_dir, "1d", resolution=3, samples=asked, device="cpu")
    data = RunData(run_dir, "cpu")
    session = new_session(RunStore(home))
    try:
        tab = LandscapeTab(session)
        qtbot.addWidget(tab)
        assert tab.select_run(run_id)
        tab.open_result(path)
        text = tab.info.text()
        assert f"{data.split_size('test'):,} test samples" in text and f"{asked:,}" not in text
        saved = io.load(path)
        loss = saved.loss
        centre = loss[int(np.argmin(np.abs(saved.y))), int(np.argmin(np.abs(saved.x)))]
        assert (f"centre loss {centre:.4g}, min {np.nanmin(loss):.4g}, max {np.nanmax(loss):.4g}" in text)
        assert f"{len(saved.x)} per axis" in text
        tab.open_result(line_path)
        assert (f"{data.split_size('train'):,} train and {data.split_size('test'):,} test samples"
                in tab.info.text())
    finally:
        tab.shutdown()
        session.shutdown(wait_s=10)


# --- Evaluation ----------------------------------------------------------------------------------------------------
def test_the_evaluation_summary_states_the_saved_evaluation(qtbot, moons_run):
    import json

    from studio.engine.replay import RunData
    from studio.engine.tasks.evaluation import evaluate_run
    from studio.gui.tabs.evaluation import EvaluationTab

    home, run_id, run_dir = moons_run
    evaluate_run(run_dir, split="test", device="cpu")
    session = new_session(RunStore(home))
    try:
        tab = EvaluationTab(session)
        qtbot.addWidget(tab)
        assert tab.select_run(run_id)
        saved = json.loads(tab.saved_path().read_text())
        text = tab.status.text()
        probs = np.load(tab.saved_path().with_suffix(".npz"))
        accuracy = float(np.mean(probs["probs"].argmax(1) == probs["labels"]))
        assert f"Accuracy {accuracy:.4f} on {len(probs['labels']):,} test examples" in text
        assert len(probs["labels"]) == RunData(run_dir, "cpu").split_size("test")
        assert f"ECE {saved['ece']:.4f}" in text and f"{len(saved['mistakes'])} most confident mistakes" in text
        assert session.store.get(run_id).name in text  # the run by its name, as everywhere
    finally:
        tab.shutdown()
        session.shutdown(wait_s=10)


# --- Compression ---------------------------------------------------------------------------------------------------
def test_the_compression_tables_state_the_saved_entry(qtbot, moons_run):
    from studio.core.contracts.compression import list_compressed
    from studio.engine.tasks.compression import compress_run
    from studio.gui.tabs.compression import CompressionTab

    home, run_id, run_dir = moons_run
    compress_run(run_dir, prune_amount=0.5)
    session = new_session(RunStore(home))
    try:
        tab = CompressionTab(session)
        qtbot.addWidget(tab)
        assert tab.select_run(run_id)
        (entry,) = list_compressed(run_dir)
        before, after = entry["before"], entry["after"]
        rows = {tab.table.item(r, 0).text(): [tab.table.item(r, c).text() for c in (1, 2, 3)]
                for r in range(tab.table.rowCount())}
        assert rows["test accuracy"] == [f"{before['test_acc']:.4f}", f"{after['test_acc']:.4f}",
                                         f"{(after['test_acc'] - before['test_acc']) * 100:+.2f} points"]
        assert rows["size on disk"][2] == f"÷ {before['bytes'] / after['bytes']:.2f}"
        assert rows["non-zero parameters"][1] == f"{after['nonzero_params']:,}"
        assert after["sparsity"] == pytest.approx(0.5, abs=0.02)  # of the prunable weights (biases are not)
        assert rows["weight sparsity"][1] == f"{after['sparsity']:.1%}"
        history = [tab.history.item(0, c).text() for c in range(tab.history.columnCount())]
        assert history[2] == f"{(after['test_acc'] - before['test_acc']) * 100:+.2f}"
        assert history[4] == f"{before['bytes'] / after['bytes']:.2f}" and history[5] == f"{after['sparsity']:.0%}"
        assert "pruned 50%" in tab.after_what.text()
    finally:
        session.shutdown(wait_s=10)


# --- Scaling laws --------------------------------------------------------------------------------------------------
def test_the_fit_summary_states_the_fit(qtbot, session):
    from studio.engine.tasks.fit_runs import fit_runs
    from studio.gui.tabs.scaling_laws import ScalingLawsTab

    store = session.store
    run = store.create_run(RunConfig().with_overrides(["train.epochs=3"]))
    store.log_metrics(run.id, [(s, "val/loss", 3.0 * s ** -0.5 + 0.2, 0.0) for s in range(10, 1000, 30)])
    result = fit_runs([run.id], against="steps", extrapolate=4.0, store=store)
    tab = ScalingLawsTab(session)
    qtbot.addWidget(tab)
    tab._on_done(result)
    (fit,) = result["fits"]
    text = tab.summary.text()
    data_x = fit["data"]["x"]
    assert f"{len(data_x)} points" in text and fit["points"] == len(data_x)
    assert f"at 4× ({4 * max(data_x):,.0f})" in text
    assert f"r² {fit['r2']:.3f}" in text and f"−{fit['b']:.3f}" in text
    assert text.startswith(f"<b>{run.name}</b>")


# --- Attention -----------------------------------------------------------------------------------------------------
def test_the_attention_line_states_the_maps_shown(qtbot, session, monkeypatch):
    from studio.gui.tabs.attention import AttentionTab
    from tests.gui.test_attention_tab import fake_maps

    run = session.store.create_run(RunConfig().with_overrides(["model.name=gpt_lm", "data.name=fortunes"]))
    tab = AttentionTab(session)
    qtbot.addWidget(tab)
    monkeypatch.setattr(tab.panel, "start", lambda handle: None)
    monkeypatch.setattr(session, "start", lambda request: request)
    assert tab.select_run(run.id)
    result = fake_maps(run.id)
    result["steps"] = [0, 6, 12]
    result["frames"] = [{**result["frames"][0], "step": s} for s in result["steps"]]
    tab.show_result(result)
    maps = result["frames"][-1]["maps"]  # one layer, one head: said in the singular
    assert maps.shape[:2] == (1, 1)
    assert (f"{len(result['steps'])} snapshots, steps {result['steps'][0]}–{result['steps'][-1]} · "
            "1 layer × 1 head") in tab.info.text()
    assert tab.step_label.text() == f"step {result['steps'][-1]}"
