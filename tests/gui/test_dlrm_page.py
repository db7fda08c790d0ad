"""The "DLRM hybrid" page: filled from a result (the timeline with the one process above the ranks, the two
losses on each other with the clicks' floors, memory per process with its measured growth, the numbers), the
replication arithmetic follows the form, Run hands the Session the request the form says, bad input is refused in
one sentence before anything starts, and the paper check is there."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pyqtgraph as pg
import pytest

from studio.core.contracts import tasks
from studio.core.contracts.dlrm import DlrmRequest
from studio.core.contracts.tasks import Task, task_for
from studio.gui.parallel.dlrm_page import DlrmPage
from studio.gui.parallel.dlrm_plots import KIND_COLOURS, replication_words
from studio.gui.tabs.parallel_lab import PAGES
from tests.gui.collective_results import make_dlrm
from tests.gui.test_parallel_modes_page import FakeHandle


@pytest.fixture
def page(qtbot):
    started: list[tuple[Task, Any, FakeHandle]] = []

    def start(request: Any) -> FakeHandle:
        started.append((task_for(request), request, FakeHandle()))
        return started[-1][2]

    view = DlrmPage(SimpleNamespace(start=start))
    view.started = started
    qtbot.addWidget(view)
    view.resize(1024, 640)
    view.show()
    return view


def test_the_page_is_in_the_lab() -> None:
    assert [p.target for p in PAGES if p.id == "dlrm"] == ["studio.gui.parallel.dlrm_page:DlrmPage"]


def test_a_result_fills_the_timeline_the_losses_the_memory_and_the_numbers(page) -> None:
    assert page.plots.gantt_hint.shown and page.plots.loss_hint.shown
    result = make_dlrm()
    page.show_result(result)
    gantt = page.plots.gantt
    assert gantt.lanes == ["one process", "rank 0", "rank 1"]
    assert {b.kind for b in gantt.bars if b.lane == 0} == {"data", "forward", "backward", "optimizer"}
    assert {"all-to-all", "all-reduce", "idle"} <= {b.kind for b in gantt.bars if b.lane == 1}
    assert all(gantt.colours[k] == KIND_COLOURS[k] for k in gantt.colours)
    curves = page.plots.loss.getPlotItem().listDataItems()
    assert [c.name() for c in curves] == ["one process", "hybrid, 2 ranks", "always the mean rate",
                                          "best possible (Bayes)"]
    assert list(curves[0].getData()[1]) == pytest.approx(result["runs"][0]["single"])
    assert curves[3].getData()[1][0] == pytest.approx(0.453)
    bars = [i for i in page.plots.memory.getPlotItem().items if isinstance(i, pg.BarGraphItem)]
    assert len(bars) == 4 and list(bars[0].opts["width"]) == pytest.approx([51.2, 25.6, 25.6])  # tables, MB
    measured = page.plots.memory.getPlotItem().listDataItems()[-1].getData()
    assert list(measured[0]) == pytest.approx([102.5, 51.3, 51.3], abs=0.1)  # the memory each really grew by
    table = page.plots.table
    cells = {table.item(i, 0).text(): (table.item(i, 1).text(), table.item(i, 2).text())
             for i in range(table.rowCount())}
    assert cells["all-to-all per step (forward, backward)"] == ("131,072 B, 131,072 B",
                                                                 "131,072 B = batch × tables × dim × 4")
    assert cells["rank 1: tables 4, 5, 6, 7"] == ("25.6 MB", "25.6 MB")
    assert "the same training" in page.panel.status.text()


def test_a_result_off_the_one_process_curve_is_said_in_the_error_colour(page) -> None:
    page.show_result(make_dlrm(gap=3e-3))
    assert "NOT the same training" in page.panel.status.text() and page.panel.status.styleSheet()


def test_the_arithmetic_follows_the_form(page) -> None:
    assert page.arithmetic.text() == replication_words(8, 100_000, 16, 2)
    assert "51.2 MB" in page.arithmetic.text() and "2.0 GB" in page.arithmetic.text()  # ours; the paper's 8×1M×64
    page.rows.setValue(1_000_000)
    page.ranks.setValue(4)
    assert "512.0 MB" in page.arithmetic.text() and "split over 4 processes each holds about 256.0 MB" in \
        page.arithmetic.text()


def test_run_hands_the_session_the_request_of_the_form(page) -> None:
    page.ranks.setValue(4)
    page.tables.setValue(12)
    page.rows.setValue(50_000)
    page.batch.setValue(512)
    page.steps.setValue(40)
    page.lr.setText("0.1")
    page.panel.run_button.click()
    task, request, _handle = page.started[0]
    assert task is tasks.DLRM
    assert request == DlrmRequest(ranks=4, tables=12, rows=50_000, batch_size=512, steps=40, lr=0.1)


@pytest.mark.parametrize(("change", "words"), [
    (lambda p: p.tables.setValue(1), "2 processes but only 1 tables"),
    (lambda p: p.batch.setValue(255), "does not split evenly over 2 processes"),
    (lambda p: p.lr.setText("fast"), "the learning rate is a number"),
    (lambda p: p.lr.setText("-1"), "the learning rate must be a positive number"),
])
def test_bad_form_input_is_refused_in_one_sentence(page, change, words) -> None:
    change(page)
    page.panel.run_button.click()
    text = page.panel.status.text()
    assert page.started == [] and words in text and "\n" not in text and "--" not in text


def test_the_paper_check_runs_from_the_page(page) -> None:
    panel = page.check_panel
    assert panel is not None and [c.name for c in panel.checks] == ["naumov_dlrm_hybrid"]
    panel.run_button.click()
    task, request, handle = page.started[0]
    assert task is tasks.PAPER_CHECK and request.names == ("naumov_dlrm_hybrid",)
    handle.end("finished", "", [{"name": "naumov_dlrm_hybrid", "verdict": "FAIL", "passed": False, "seconds": 3.0,
                                 "measures": []}])
    assert "FAIL" in page.verdicts.text()


def test_the_wheel_scrolls_the_form_instead_of_changing_its_fields(page) -> None:
    from studio.gui.widgets.wheel_guard import fields_under, is_guarded

    fields = fields_under(page)
    assert len(fields) >= 7 and all(is_guarded(f) for f in fields)
