"""The Compression, Scaling-laws and Data-parallel tabs on real runs: each runs its `studio` command in a child
process and shows the result (issue 15, parts 2–4)."""

from __future__ import annotations

import math

import pytest

from studio.core.config import RunConfig
from studio.core.runs.store import RunStore
from studio.gui.app.main_window import MainWindow
from tests.gui.conftest import new_session


def open_tab(qtbot, home, title: str):
    session = new_session(RunStore(home))
    win = MainWindow(session, probe_backend=False)
    win.shell.confirm_close = lambda: True
    qtbot.addWidget(win)
    win.show()
    tab = win.pages.tab(title)
    win.tabs.setCurrentWidget(tab)
    return session, tab


def test_compression_tab_compresses_and_sweeps_the_selected_run(qtbot, queued_runs):
    home, _, _, ids = queued_runs
    session, tab = open_tab(qtbot, home, "Compression")
    session.set_selection([ids[1]])  # cancelled before it started: nothing to compress, and it says so
    assert tab.run_box.currentData() is None and not tab.run_button.isEnabled()
    assert tab.run_box.shown_text().endswith("not finished, or no checkpoint saved") and "Pick a" in tab.title.text()
    session.set_selection([ids[0]])  # its own Run box follows the run list's selection …
    assert tab.run_box.currentData() == ids[0] and tab.run_button.isEnabled()
    other = tab.run_box.findData(ids[2])
    tab.run_box.setCurrentIndex(other)
    tab.run_box.activated.emit(other)  # … and a run picked in it is the selection everywhere
    assert session.selected_runs() == [ids[2]] and tab.run_id == ids[2]
    session.set_selection([ids[0]])
    tab.prune.setValue(0.5)
    tab.quantize.setCurrentText("int8")
    tab.compress()
    assert [h.kind for h in session.running("compress")] == ["compress"]  # the Session follows the job
    qtbot.waitUntil(lambda: bool(tab.last is not None or tab.panel.error), timeout=120_000)
    assert tab.panel.error is None, tab.panel.error
    assert tab.last["after"]["sparsity"] == pytest.approx(0.5, abs=0.02)  # a 16-unit MLP: per-tensor rounding
    assert tab.last["method"] == "dynamic" and tab.last["run_id"] == ids[0]
    assert tab.table.item(0, 0).text() == "test accuracy"
    assert tab.table.item(0, 2).text() == f"{tab.last['after']['test_acc']:.4f}"
    assert tab.history.rowCount() >= 1 and tab.history.item(tab.history.rowCount() - 1, 0).text() == tab.last["id"]
    tab.run_sweep()
    qtbot.waitUntil(lambda: bool(tab.sweep is not None or tab.panel.error), timeout=120_000)
    assert tab.panel.error is None, tab.panel.error
    assert [p["target"] for p in tab.sweep["points"]][-1] == 0.95
    assert len(tab.plot.getPlotItem().listDataItems()) == 2  # the sweep and the 1-point line


def test_scaling_laws_tab_fits_a_power_law_and_reports_a_bad_axis(qtbot, studio_home):
    store = RunStore(studio_home)
    run = store.create_run(RunConfig(), name="synthetic")
    rows = [(s, "val/loss", 3.0 * s ** -0.5 + 0.2, 0.0) for s in range(10, 1000, 30)]
    store.log_metrics(run.id, rows)
    session, tab = open_tab(qtbot, studio_home, "Scaling laws")
    session.set_selection([run.id])
    tab.fit()
    qtbot.waitUntil(lambda: bool(tab.result is not None or tab.panel.error), timeout=60_000)
    assert tab.panel.error is None, tab.panel.error
    fit = tab.result["fits"][0]
    assert fit["b"] == pytest.approx(0.5, rel=0.01) and fit["r2"] == pytest.approx(1.0, abs=1e-6)
    assert "r² 1.000" in tab.summary.text()
    assert len(tab.plot.getPlotItem().listDataItems()) == 3  # fit, extrapolation, data
    tab.against.setCurrentText("params")  # one run cannot fit against parameter count
    tab.fit()
    qtbot.waitUntil(lambda: bool(tab.panel.error is not None), timeout=60_000)
    assert "at least 4 runs" in tab.panel.error and "at least 4 runs" in tab.summary.text()


def test_a_fit_that_explains_nothing_warns_and_draws_no_band(qtbot, studio_home):
    """Issue 33.8: a fit with r² = 0.000 drew its 95 % band over the whole plot, without a word."""
    import numpy as np
    import pyqtgraph as pg

    from studio.gui.tabs.scaling_laws import MIN_R2

    store = RunStore(studio_home)
    run = store.create_run(RunConfig(), name="flat")
    noise = np.random.default_rng(0).normal(0, 0.05, 40)  # a flat, noisy loss: no power law in it
    store.log_metrics(run.id, [(10 + 25 * i, "val/loss", 1.0 + float(v), 0.0) for i, v in enumerate(noise)])
    session, tab = open_tab(qtbot, studio_home, "Scaling laws")
    session.set_selection([run.id])
    tab.fit()
    qtbot.waitUntil(lambda: bool(tab.result is not None or tab.panel.error), timeout=60_000)
    assert tab.panel.error is None, tab.panel.error
    assert tab.result["fits"][0]["r2"] < MIN_R2  # the set-up really is a poor fit
    assert "explains little" in tab.summary.text() and f"below {MIN_R2:g}" in tab.summary.text()
    items = tab.plot.getPlotItem().items
    assert not [i for i in items if isinstance(i, pg.FillBetweenItem)]  # no band over the plot
    assert any("(poor fit)" in label.text for _sample, label in tab.legend.items)


@pytest.mark.slow  # spawns 3 processes that import torch; `studio scale` itself is tested in the default run
def test_data_parallel_tab_measures_one_and_two_processes(qtbot, studio_home):
    session, lab = open_tab(qtbot, studio_home, "Parallelism lab")
    tab = lab.page("data_parallel")  # a page of the Parallelism lab
    session.set_config(RunConfig().with_overrides(["data.name=moons", "model.widths=16", "train.batch_size=32"]))
    tab.steps.setValue(8)
    tab.measure()
    assert tab.cancel_button.isEnabled()
    assert [h.kind for h in session.running("scale")] == ["scale"]  # the Session follows the job
    qtbot.waitUntil(lambda: bool(tab.result is not None or tab.panel.error), timeout=180_000)
    assert tab.panel.error is None, tab.panel.error
    assert tab.table.rowCount() == 2 and tab.table.item(1, 1).text() == "2"
    two = tab.result["rows"][1]
    assert math.isfinite(two["allreduce_ms"]) and tab.table.item(1, 8).text() == f"{two['allreduce_ms']:.2f}"
    assert len(tab.throughput.getPlotItem().listDataItems()) == 2  # linear scaling and measured


def test_scaling_laws_tab_queues_a_size_sweep_of_the_current_model(qtbot, studio_home, monkeypatch):
    session, tab = open_tab(qtbot, studio_home, "Scaling laws")
    session.set_config(RunConfig().with_overrides(["data.name=fortunes", "data.tokenizer=char", "model.name=gpt_lm"]))
    keys = [tab.size_key.itemText(i) for i in range(tab.size_key.count())]
    assert keys == ["model.layers", "model.heads", "model.d_model", "model.context"]
    assert tab.size_key.currentText() == "model.d_model"
    queued: list = []
    monkeypatch.setattr(session, "enqueue", lambda points: queued.extend(points) or [f"r{i}" for i in range(4)])
    tab.size_values.setText("16, 32, 64, 128")
    assert tab.queue_sizes() == ["r0", "r1", "r2", "r3"]
    assert [c.model.params["d_model"] for c, _ in queued] == [16, 32, 64, 128]
    assert all(c.model.name == "gpt_lm" and c.data.params["tokenizer"] == "char" for c, _ in queued)
    assert "Queued 4 runs of model.d_model" in tab.summary.text()
    tab.size_values.setText("16, 30")  # 30 is not a multiple of the 4 heads: nothing is queued
    queued.clear()
    assert tab.queue_sizes() == [] and not queued and "must divide d_model" in tab.summary.text()
    session.set_config(RunConfig())  # an MLP: its widths are its size
    assert tab.size_key.currentText() == "model.widths"
