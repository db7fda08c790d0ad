"""The Parallelism lab's Async SGD page: built from the lab's registry, every control explained, a result drawn
(table, both loss plots, staleness and per-worker bars), bad input stopped with one sentence before any job, the
paper check's set-up put in the form, and (slow) a real small study through the Session."""

from __future__ import annotations

import os

import pyqtgraph as pg
import pytest
from PySide6.QtWidgets import QAbstractButton, QAbstractSpinBox, QComboBox, QLineEdit

from studio.core.checks.catalog import get_check
from studio.core.runs.store import RunStore
from studio.gui.app.main_window import MainWindow
from tests.gui.conftest import new_session


def _curve(losses: list[float], rate: float) -> list[dict]:
    return [{"update": 10 * i, "seconds": 10 * i / rate, "loss": v} for i, v in enumerate(losses)]


def fake_result() -> dict:
    def row(mode: str, label: str, rate: float, losses: list[float], stale: list[int], workers: list[int]) -> dict:
        return {"mode": mode, "label": label, "updates": 10 * (len(losses) - 1), "gradients": sum(workers),
                "dropped": 1, "seconds": 10 * (len(losses) - 1) / rate, "updates_per_s": rate, "gradients_per_s": rate,
                "curve": _curve(losses, rate), "final_loss": losses[-1], "test_acc": 0.8, "staleness": stale,
                "mean_staleness": sum(i * c for i, c in enumerate(stale)) / sum(stale),
                "max_staleness": len(stale) - 1, "worker_updates": workers}

    return {"rows": [row("sync", "sync (PS, rounds of k)", 16.0, [2.3, 1.2, 0.9], [60], [20, 20, 20]),
                     row("async", "async (PS)", 400.0, [2.3, 1.4, 1.0], [8, 10, 1] + [0] * 40 + [1], [9, 10, 1]),
                     row("async-sa", "async + staleness-aware lr", 390.0, [2.3, 1.3, 0.95], [9, 10, 1], [9, 10, 1]),
                     row("hogwild", "Hogwild (shared memory)", 800.0, [2.3, 1.1, 0.8], [18, 2], [10, 9, 1])],
            "dataset": "fashion_mnist_small", "widths": [128], "workers": 3, "delays": [0.0, 0.0, 0.05],
            "batch_size": 32, "lr": 0.05, "updates": 20, "seconds": 0.0, "device": "cpu", "cores": 2, "port": 29600,
            "seed": 0}


@pytest.fixture
def page(qtbot, studio_home):
    session = new_session(RunStore(studio_home))
    win = MainWindow(session, probe_backend=False)
    win.shell.confirm_close = lambda: True
    qtbot.addWidget(win)
    win.show()
    lab = win.pages.tab("Parallelism lab")
    win.tabs.setCurrentWidget(lab)
    yield lab.page("async")
    session.shutdown(wait_s=10)


def test_every_control_has_a_tooltip(page):
    controls = [w for kind in (QAbstractButton, QAbstractSpinBox, QComboBox, QLineEdit) for w in page.findChildren(kind)
                if w.isVisibleTo(page) and not isinstance(w.parent(), QAbstractSpinBox)]
    assert len(controls) >= 12
    assert [w for w in controls if not w.toolTip()] == []
    assert "Claim." in page.claim.text() and page.check_panel is not None


def test_the_updates_axis_labels_decades_only(page):
    """1 to 300 updates on a 480-pixel log axis: labels at 1, 10, 100 (pyqtgraph's own piled up '2·10¹3·10¹…')."""
    import numpy as np

    axis = page.by_update.getAxis("bottom")
    labelled, *rest = axis.tickValues(0.0, np.log10(300), 480)
    assert axis.tickStrings(labelled[1], 1.0, labelled[0]) == ["1", "10", "100"]
    assert all(s == "" for s in axis.tickStrings(rest[0][1], 1.0, None)) and len(rest[0][1]) == 17


def test_a_result_is_drawn(page):
    page.show_result(fake_result())
    assert page.table.rowCount() == 4
    assert page.table.item(2, 0).text() == "async, lr ÷ τ" and page.table.item(1, 0).text() == "async"
    assert page.table.item(1, 1).text() == "400.0"
    assert len(page.by_update.getPlotItem().listDataItems()) == 4
    assert len(page.by_time.getPlotItem().listDataItems()) == 4
    bars = [i for i in page.staleness.getPlotItem().items if isinstance(i, pg.BarGraphItem)]
    assert len(bars) == 4
    assert [len(b.opts["height"]) for b in bars] == [1, 20, 3, 2]  # 44 bins: the last bar holds staleness ≥ 19
    assert bars[1].opts["height"][-1] == pytest.approx(1 / 20) and "≥ 19" in page.staleness.getAxis("bottom").labelText
    workers = [i for i in page.per_worker.getPlotItem().items if isinstance(i, pg.BarGraphItem)]
    assert list(workers[0].opts["height"]) == pytest.approx([1 / 3] * 3)
    assert "delays 0, 0, 0.05 s" in page.panel.status.text()


def test_bad_input_is_one_sentence_and_starts_nothing(page):
    page.delays.setText("0,slow")
    page.run()
    assert "seconds per gradient" in page.panel.status.text() and not page.panel.busy
    page.delays.setText("0,0,0,0.1")
    page.run()
    assert "4 delays given for 3 workers" in page.panel.status.text() and not page.panel.busy
    page.delays.setText("0")
    page.lr.setText("fast")
    page.run()
    assert "learning rate is a number" in page.panel.status.text() and not page.panel.busy
    assert page.panel.run_button.isEnabled()


def test_bad_input_is_said_in_the_pages_words_not_the_command_lines(page):
    """Issue 33.8: "--delays takes seconds per gradient…" named the CLI's option on a page that has a field."""
    said = []
    for delays, modes in (("0,slow", ("sync",)), ("0", ())):
        page.delays.setText(delays)
        for mode, box in page.mode_boxes.items():
            box.setChecked(mode in modes)
        page.run()
        said.append(page.panel.status.text())
        assert not page.panel.busy
    assert said[0].startswith("Delays are seconds per gradient") and "'0,slow'" in said[0]
    assert said[1] == "Tick at least one mode: sync, async or hogwild."
    assert not [text for text in said if "--" in text or "async-sa" in text]


def test_the_check_setup_goes_into_the_form(page):
    page.set_params(dict(get_check("chen_async_straggler").preset))
    r = page.request()
    assert (r.workers, r.delays, r.seconds, r.updates, r.lr) == (3, (0.0, 0.0, 0.2), 4.0, 0, 0.1)
    assert r.run_modes() == ("sync", "async")


@pytest.mark.slow  # starts 3 + 1 processes that import torch
def test_a_real_small_study_runs_through_the_session(qtbot, page):
    page.workers.setValue(2)
    page.delays.setText("0,0.01")
    page.mode_boxes["hogwild"].setChecked(False)
    page.budget.setValue(20)
    page.run()
    assert page.panel.cancel_button.isEnabled()
    qtbot.waitUntil(lambda: page.result is not None or page.panel.handle.done, timeout=180_000)
    assert page.result is not None, page.panel.status.text()
    assert [r["mode"] for r in page.result["rows"]] == ["sync", "async", "async-sa"]
    assert page.table.rowCount() == 3 and page.result["rows"][0]["updates"] == 20


def test_cancel_ends_every_process_of_the_study(qtbot, page):
    from tests.reliability.test_async_failures import _alive, _cmdline, _descendants

    page.mode_boxes["hogwild"].setChecked(False)
    page.budget.setValue(100_000)
    page.run()
    me = os.getpid()
    qtbot.waitUntil(lambda: len([p for p in _descendants(me) if "async_sgd.node" in _cmdline(p)]) == 4,
                    timeout=90_000)
    family = [p for p in _descendants(me) if "async_sgd" in _cmdline(p)]
    assert len(family) >= 4
    page.panel.cancel_button.click()
    qtbot.waitUntil(lambda: not page.panel.busy, timeout=30_000)
    qtbot.waitUntil(lambda: not _alive(family), timeout=15_000)
    assert page.panel.status.text() == "Cancelled." and page.panel.run_button.isEnabled()
    assert page.panel.error is None  # a cancel is not a failure
