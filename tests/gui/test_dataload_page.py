"""The Parallelism lab's "Input pipeline" page: a result from a fixture (verdict, table, bars with the waiting
share), a tooltip on every control, bad input as a sentence before any job, and real tiny runs (done, cancelled)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtWidgets import QAbstractButton, QComboBox, QLineEdit, QSpinBox

from studio.gui.session import theme

RESULT = {
    "rows": [
        {"kind": "loader", "label": "0 workers", "workers": 0, "pin_memory": None, "persistent": None, "steps": 60,
         "samples_per_s": 1000.0, "step_ms": 64.0, "wait_ms": 40.3, "compute_ms": 23.7, "wait_share": 0.63,
         "epoch_start_ms": 60.0, "first_batch_ms": 61.0, "speedup": 1.0,
         "cpu_cores": 1.0, "gpu_util": None, "gpu_memory_mb": None},
        {"kind": "loader", "label": "2 workers, persistent", "workers": 2, "pin_memory": None, "persistent": True,
         "steps": 60, "samples_per_s": 1800.0, "step_ms": 35.0, "wait_ms": 10.0, "compute_ms": 25.0,
         "wait_share": 0.29, "epoch_start_ms": 30.0, "first_batch_ms": 200.0, "speedup": 1.8,
         "cpu_cores": 1.9, "gpu_util": None, "gpu_memory_mb": None},
        {"kind": "device", "label": "device-resident", "workers": 0, "pin_memory": None, "persistent": None,
         "steps": 60, "samples_per_s": 2600.0, "step_ms": 24.5, "wait_ms": 0.5, "compute_ms": 24.0,
         "wait_share": 0.02, "epoch_start_ms": 0.5, "first_batch_ms": 0.5, "speedup": 2.6,
         "cpu_cores": 1.0, "gpu_util": None, "gpu_memory_mb": None},
    ],
    "verdict": "The model waited 63 % of each step for data with 0 workers: preload or add workers.",
    "bottleneck": True, "folder": "/data/pets", "images": 200, "skipped": 1, "skipped_examples": ["a.png: truncated"],
    "classes": 2, "shape": [3, 64, 64], "model": "mlp", "batch_size": 64, "steps": 60, "epochs": 2, "device": "cpu",
    "cores": 2, "threads": 1, "start_method": "fork", "preload_s": 0.4, "decode_ms": 2.0, "pin_memory": "n/a on CPU",
    "gpu": "GPU utilisation is not measured: the sweep trains on the CPU",
    "notes": ["1 of 201 files could not be decoded and were left out (e.g. a.png: truncated)"],
}


@pytest.fixture
def page(window):
    lab = window.pages.tab("parallel_lab")
    window.tabs.setCurrentWidget(lab)
    return lab.page("dataload")


def test_a_result_shows_the_verdict_table_and_bars(page):
    page.show_result(RESULT)
    assert theme.error_colour() in page.verdict.text()
    assert "The model waited 63 % of each step for data" in page.verdict.text()
    assert page.table.rowCount() == 3 and page.table.item(1, 0).text() == "2 workers, persistent"
    assert page.table.item(0, 6).text() == "63%" and page.table.item(2, 2).text() == "2.60×"
    bars = [i for i in page.chart.getPlotItem().items if isinstance(i, pg.BarGraphItem)]
    computing, waiting = (b.opts for b in bars)
    assert list(computing["height"]) == pytest.approx([370.0, 1278.0, 2548.0])
    assert list(waiting["height"]) == pytest.approx([630.0, 522.0, 52.0])  # stacked on the computing part
    labels = [i.toPlainText() for i in page.chart.getPlotItem().items if isinstance(i, pg.TextItem)]
    assert labels == ["63 %", "29 %", "2 %"]
    assert "1 of 201 files could not be decoded" in page.panel.status.text()
    assert "pin_memory: n/a on CPU" in page.panel.status.text()


def test_every_control_has_a_tooltip_and_the_claim_and_check_are_there(page):
    controls = [w for kind in (QAbstractButton, QLineEdit, QSpinBox, QComboBox) for w in page.findChildren(kind)
                if not isinstance(w.parent(), QSpinBox | QComboBox) and not w.objectName().startswith("qt_")]
    assert controls and not [w for w in controls if not w.toolTip()]
    assert page.claim.text().startswith("Claim:")
    assert [c.name for c in page.check.checks] == ["mohan_data_stalls"]
    assert page.check.run_button.text() == "Paper check"


def test_bad_input_is_a_sentence_and_starts_no_job(page):
    page.folder.setText("")
    page.run()
    assert page.panel.handle is None and "pick a folder of images first" in page.panel.status.text()
    page.folder.setText("/data")
    page.workers.setText("two")
    page.run()
    assert page.panel.handle is None and "whole numbers" in page.panel.status.text()
    assert page.panel.run_button.isEnabled()


def _pngs(target: Path, n: int) -> Path:
    from studio.core.host.paths import resource
    from studio.engine.dataload.pngs import write_pngs

    with np.load(resource("data", "fashion_mnist_small.npz")) as npz:
        write_pngs(npz["x_train"][:n, None], npz["y_train"][:n], [str(c) for c in npz["classes"]], target)
    return target


def test_a_real_tiny_run_fills_the_page(qtbot, page, tmp_path):
    page.folder.setText(str(_pngs(tmp_path, 60)))
    page.workers.setText("0")
    page.persistent.setChecked(False)
    page.batch.setValue(8)
    page.steps.setValue(4)
    page.panel.run_button.click()
    assert not page.panel.run_button.isEnabled() and page.panel.cancel_button.isEnabled()
    qtbot.waitUntil(lambda: page.result is not None or page.panel.error is not None, timeout=120_000)
    assert page.panel.error is None
    assert page.table.rowCount() == 2 and page.table.item(1, 0).text() == "device-resident"
    assert "of each step for data" in page.verdict.text()
    panel = page.panel
    assert panel.run_button.isEnabled() and not panel.cancel_button.isEnabled()
    assert panel.bar.value() == panel.bar.maximum()


def test_cancel_stops_the_run(qtbot, page, tmp_path):
    page.folder.setText(str(_pngs(tmp_path, 30)))
    page.steps.setValue(100_000)
    page.panel.run_button.click()
    qtbot.waitUntil(lambda: page.panel.bar.value() > 0
                    or page.panel.status.text().startswith(("finding", "decoding", "0 ")), timeout=60_000)
    page.panel.cancel_button.click()
    qtbot.waitUntil(lambda: not page.panel.busy, timeout=60_000)
    assert page.panel.status.text() == "Cancelled." and page.panel.run_button.isEnabled() and page.result is None
    assert page.panel.error is None  # a cancel is not a failure


def test_the_verdict_puts_its_first_clause_large_and_the_fixes_below():
    from studio.gui.parallel.dataload_page import verdict_html

    text = verdict_html("The model waited 92 % of each step for data with 0 workers: preload or add workers "
                        "(2 workers: 40 % waiting, 1.9× the samples/s; preloaded on the device: 1 % waiting, 8.0× "
                        "the samples/s) — the workers got at most 1.0 cores: this machine had none to spare.", True)
    head, rest = text.split("</div>", 1)
    assert "15pt" in head and head.endswith("preload or add workers.") and theme.error_colour() in head
    assert rest.startswith("<div>2 workers: 40 % waiting") and "none to spare." in rest
    calm = verdict_html("Data is not the bottleneck: the model waited only 4 % of each step.", False)
    assert "#2e9e44" in calm and calm.count("<div") == 1
