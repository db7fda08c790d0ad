"""The "Ring all-reduce" page: filled from a result (the bytes on the cost model's lines, the time against p, one
p's timeline per algorithm, the numbers), Run hands the Session the request the form says, bad input is refused
in one sentence before anything starts, a failed job's sentence lands on the page, and the paper check is there."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from studio.core.contracts import tasks
from studio.core.contracts.allreduce import AllreduceRequest
from studio.core.contracts.tasks import Task, task_for
from studio.gui.parallel.ring_page import RingPage
from studio.gui.parallel.ring_plots import COLUMNS, KIND_COLOURS
from studio.gui.tabs.parallel_lab import PAGES
from tests.gui.collective_results import make_allreduce
from tests.gui.test_parallel_modes_page import FakeHandle


@pytest.fixture
def page(qtbot):
    started: list[tuple[Task, Any, FakeHandle]] = []

    def start(request: Any) -> FakeHandle:
        started.append((task_for(request), request, FakeHandle()))
        return started[-1][2]

    view = RingPage(SimpleNamespace(start=start))
    view.started = started
    qtbot.addWidget(view)
    view.resize(1024, 640)
    view.show()
    return view


def test_the_page_is_in_the_lab() -> None:
    assert [p.target for p in PAGES if p.id == "ring"] == ["studio.gui.parallel.ring_page:RingPage"]


def test_a_result_puts_the_measured_bytes_on_the_models_lines(page) -> None:
    assert page.plots.bytes_hint.shown and not page.plots.selector.isEnabled()
    result = make_allreduce()
    page.show_result(result)
    curves = page.plots.bytes.getPlotItem().listDataItems()
    names = [c.name() for c in curves]
    assert names == ["ring model 2(p−1)/p", "ring, each rank", "server model p−1 (rank 0)", "server's workers: 1",
                     "server, rank 0", "server, the others"]
    ring_line, ring_dots = curves[0].getData(), curves[1].getData()
    assert ring_line[1][0] == pytest.approx(1.0) and ring_line[1][-1] == pytest.approx(1.75)  # p = 2 … 8
    assert len(ring_dots[0]) == (2 + 4 + 8) * 2  # every rank of every p and size
    for p, y in zip(*ring_dots, strict=True):
        assert y == pytest.approx(2 * (p - 1) / p, rel=1e-4)  # the dots sit on the line
    server0 = curves[4].getData()
    assert list(server0[0]) == [2, 2, 4, 4, 8, 8] and list(server0[1]) == [1, 1, 3, 3, 7, 7]
    assert not page.plots.bytes_hint.shown
    assert "16M" in page.plots.time.getPlotItem().titleLabel.text
    assert len(page.plots.time.getPlotItem().listDataItems()) == 6  # wall and CPU of each algorithm
    assert page.plots.table.rowCount() == len(result["rows"]) == 18
    first = [page.plots.table.item(0, j).text() for j in range(len(COLUMNS))]
    assert first[:6] == ["ring", "2", "1M", "1.000", "1.000", "1.000"] and first[-1] == "0"
    assert "take turns" in page.panel.status.text()  # 8 processes on 2 cores


def test_the_timeline_follows_the_algorithm_chosen(page) -> None:
    result = make_allreduce()
    page.show_result(result)
    gantt = page.plots.gantt
    assert page.plots.selector.count() == 3 and gantt.lanes == [f"rank {r}" for r in range(8)]
    assert {b.kind for b in gantt.bars} == {"reduce-scatter", "all-gather", "reduce", "idle"}
    assert all(gantt.colours[k] == KIND_COLOURS[k] for k in gantt.colours)
    assert max(int(b.label.split()[1]) for b in gantt.bars if b.label) == 14  # 2(p−1) steps
    page.plots.selector.setCurrentIndex(1)
    assert {b.kind for b in gantt.bars} == {"send", "recv", "reduce"}
    assert "p = 8, N = 16M" in page.plots.summary.text()
    page.show_result(make_allreduce())  # a new result keeps the choice
    assert page.plots.selector.currentData() == "server"


def test_run_hands_the_session_the_request_of_the_form(page) -> None:
    page.rank_boxes[4].setChecked(False)
    page.rank_boxes[3].setChecked(True)
    page.sizes.setText("512K, 4M")
    page.algorithm_boxes["torch"].setChecked(False)
    page.repeats.setValue(5)
    page.panel.run_button.click()
    assert len(page.started) == 1
    task, request, handle = page.started[0]
    assert task is tasks.ALLREDUCE
    assert request == AllreduceRequest(ranks=(2, 3, 8), sizes=(512 << 10, 4 << 20), algorithms=("ring", "server"),
                                       repeats=5)
    handle.progress.emit(0.5, "", None)
    assert page.panel.bar.value() == 500
    page.panel.cancel_button.click()
    assert page.panel.status.text() == "Cancelled." and page.panel.run_button.isEnabled()


@pytest.mark.parametrize(("change", "words"), [
    (lambda p: p.sizes.setText("1G"), "a size is a number of bytes with K or M"),
    (lambda p: p.sizes.setText("128M"), "a size is 1K to 64M"),
    (lambda p: [b.setChecked(False) for b in p.rank_boxes.values()], "at least one process count"),
    (lambda p: [b.setChecked(False) for b in p.algorithm_boxes.values()], "choose at least one algorithm"),
])
def test_bad_form_input_is_refused_in_one_sentence(page, change, words) -> None:
    change(page)
    page.panel.run_button.click()
    text = page.panel.status.text()
    assert page.started == [] and words in text and "\n" not in text and "--" not in text
    assert page.panel.run_button.isEnabled()


def test_a_failed_job_shows_its_sentence_and_keeps_what_was_shown(page) -> None:
    page.show_result(make_allreduce())
    page.panel.run_button.click()
    page.started[0][2].end("failed", "all-reduce rank 3 was killed by SIGKILL during ring at p = 8, 16M; the other "
                                     "ranks were stopped\nTraceback (most recent call last): …")
    assert page.panel.status.text() == ("Failed: all-reduce rank 3 was killed by SIGKILL during ring at p = 8, 16M; "
                                        "the other ranks were stopped")
    assert page.plots.table.rowCount() == 18


def test_the_paper_check_runs_from_the_page(page) -> None:
    panel = page.check_panel
    assert panel is not None and [c.name for c in panel.checks] == ["sergeev_ring_allreduce"]
    panel.run_button.click()
    task, request, handle = page.started[0]
    assert task is tasks.PAPER_CHECK and request.names == ("sergeev_ring_allreduce",)
    handle.end("finished", "", [{"name": "sergeev_ring_allreduce", "verdict": "PASS", "passed": True,
                                 "seconds": 40.0, "measures": []}])
    assert "PASS" in page.verdicts.text()


def test_the_wheel_scrolls_the_form_instead_of_changing_its_fields(page) -> None:
    from studio.gui.widgets.wheel_guard import fields_under, is_guarded

    fields = fields_under(page)
    assert fields and all(is_guarded(f) for f in fields)
