"""The "One model, four ways" page: filled from a result (table, Gantt, bubble, memory, loss curves), the
timeline follows the chosen mode, Run hands the Session the request the form says, bad input is refused in one
sentence before anything starts, and a failed job's sentence (not its traceback) lands on the page."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pyqtgraph as pg
import pytest
from PySide6.QtCore import QObject, Qt, Signal

from studio.core.checks.base import PaperCheck
from studio.core.contracts import tasks
from studio.core.contracts.parallel import ParallelRequest
from studio.core.contracts.tasks import Task, task_for
from studio.gui.parallel import modes_page
from studio.gui.parallel.modes_page import ModesPage
from studio.gui.parallel.modes_table import COLUMNS
from studio.gui.parallel.modes_timeline import KIND_COLOURS
from studio.gui.tabs.parallel_lab import PAGES
from tests.gui.parallel_result import make_result


class FakeHandle(QObject):
    progress = Signal(float, str, object)
    frame = Signal(object)
    ended = Signal(str, str)

    def __init__(self) -> None:
        super().__init__()
        self.job, self.done, self.result = SimpleNamespace(label="parallel modes"), False, None

    def progress_text(self) -> str:
        return "ddp: step 12 of 30"

    def cancel(self) -> None:
        self.end("stopped")

    def end(self, state: str, message: str = "", result: Any = None) -> None:
        self.done, self.result = True, result
        self.ended.emit(state, message)


@pytest.fixture
def page(qtbot, monkeypatch):
    """The page with a task to run and a Session that records what it was asked to start."""
    started: list[tuple[Task, Any, FakeHandle]] = []

    def start(request: Any) -> FakeHandle:
        started.append((task_for(request), request, FakeHandle()))
        return started[-1][2]

    view = ModesPage(SimpleNamespace(start=start))
    view.started = started
    qtbot.addWidget(view)
    view.resize(1024, 640)
    view.show()
    return view


def cell(view: ModesPage, row: int, column: str) -> str:
    return view.table.item(row, COLUMNS.index(column)).text()


def test_the_page_is_the_labs_modes_page():
    assert [p.target for p in PAGES if p.id == "modes"] == ["studio.gui.parallel.modes_page:ModesPage"]


def test_a_result_fills_the_table_the_timeline_and_the_plots(page):
    assert not page.timeline.selector.isEnabled() and page.timeline.empty.shown  # nothing to choose yet
    result = make_result()
    page.show_result(result)
    rows = result["rows"]
    assert page.table.rowCount() == len(rows) == 11
    assert [cell(page, i, "mode") for i in (0, 1, 2, 3, 10)] == ["single", "DDP", "model-parallel", "GPipe M=1",
                                                                 "1F1B M=8"]
    assert cell(page, 0, "× single") == "1.00×" and cell(page, 0, "loss gap") == "reference"
    assert cell(page, 1, "× single") == f"{rows[1]['samples_per_s'] / rows[0]['samples_per_s']:.2f}×"
    assert cell(page, 1, "loss gap").endswith("✓") and cell(page, 6, "theory") == "11%"
    assert cell(page, 2, "parameters MB").count("/") == 1  # one number per rank
    # the timeline of the first row, one lane per rank, every interval a bar in ms
    assert page.timeline.selector.count() == 11 and page.timeline.gantt.lanes == ["rank 0"]
    assert len(page.timeline.gantt.bars) == len(rows[0]["timeline"])
    assert page.timeline.gantt.bars[0].end == pytest.approx(rows[0]["timeline"][0]["end"] * 1000)
    assert not page.timeline.empty.shown
    # the bubble: the theory line and the measured points of GPipe, 1F1B and model-parallel
    curves = [i for i in page.plots.bubble.getPlotItem().listDataItems()]
    assert len(curves) == 4
    theory = curves[0].getData()
    assert theory[1][0] == pytest.approx(0.5) and theory[1][-1] == pytest.approx(1 / 9)
    assert list(curves[1].getData()[0]) == [1, 2, 4, 8]
    # memory: four stacked parts; single 1 bar, the others 2 ranks, pipelines at their largest M
    bars = [i for i in page.plots.memory.getPlotItem().items if isinstance(i, pg.BarGraphItem)]
    assert len(bars) == 4 and len(bars[0].opts["y"]) == 1 + 2 * 4
    ticks = page.plots.memory.getAxis("left")._tickLevels[0]
    assert [t for _, t in ticks][-1] == "1F1B M=8 · rank 1"
    assert len(page.plots.loss.getPlotItem().listDataItems()) == 11
    assert "rank 0 holds fc1, fc2" in page.panel.status.text()


def test_choosing_another_mode_redraws_the_gantt_with_its_intervals(page, qtbot):
    result = make_result()
    page.show_result(result)
    page.timeline.selector.setCurrentText("GPipe M=8")
    row = result["rows"][6]
    gantt = page.timeline.gantt
    assert gantt.lanes == ["rank 0", "rank 1"] and len(gantt.bars) == len(row["timeline"])
    assert {b.kind for b in gantt.bars} == {"forward", "backward", "send", "recv", "idle", "optimizer"}
    assert all(gantt.colours[k] == KIND_COLOURS[k] for k in gantt.colours)
    assert list(gantt.colours) == ["forward", "backward", "optimizer", "send", "recv", "idle"]  # the legend's order
    assert any("micro-batch 7" in b.label for b in gantt.bars)
    assert "bubble" in page.timeline.summary.text()
    page.table.selectRow(1)  # a row of the table draws its timeline
    assert page.timeline.selector.currentText() == "DDP"
    assert "allreduce" in {b.kind for b in gantt.bars}
    page.show_result(make_result())  # a new result keeps the chosen mode
    assert page.timeline.selector.currentText() == "DDP"


def test_a_result_without_some_rows_says_what_was_not_run(page):
    result = make_result(p=4, microbatches=(4, 8))
    result["rows"] = [r for r in result["rows"] if r["mode"] != "ddp"]
    result["notes"] = ["1F1B needs at least as many micro-batches as ranks (4): M=2 was not run."]
    page.show_result(result)
    assert page.table.rowCount() == 6 and "Not run: 1F1B needs at least" in page.panel.status.text()
    page.timeline.selector.setCurrentText("GPipe M=4")
    assert page.timeline.gantt.lanes == ["rank 0", "rank 1", "rank 2", "rank 3"]
    assert page.plots.bubble.getPlotItem().listDataItems()[0].getData()[1][0] == pytest.approx(3 / 4)


def test_a_loss_off_the_single_curve_is_marked(page):
    page.show_result(make_result(bad_gap=0.01))
    assert cell(page, 1, "loss gap").endswith("✗") and cell(page, 2, "loss gap").endswith("✓")


def test_run_hands_the_session_the_request_of_the_form(page):
    form = page.form
    form.mode_boxes["ddp"].setChecked(False)
    form.ranks.setValue(3)
    form.microbatches.setText("8, 2,4")
    form.steps.setValue(40)
    form.batch.setValue(128)
    form.widths.setText("256,256,128")
    page.panel.run_button.click()
    assert len(page.started) == 1
    task, request, handle = page.started[0]
    assert task is tasks.PARALLEL
    assert request == ParallelRequest(modes=("single", "model", "pipeline-gpipe", "pipeline-1f1b"), ranks=3,
                                      microbatches=(2, 4, 8), widths=(256, 256, 128), batch_size=128, steps=40)
    assert not page.panel.run_button.isEnabled() and page.panel.cancel_button.isEnabled()
    page.panel.run_button.click()  # one job at a time
    assert len(page.started) == 1
    handle.progress.emit(0.5, "", None)
    assert page.panel.bar.value() == 500 and "step 12" in page.panel.status.text()
    page.panel.cancel_button.click()
    assert page.panel.status.text() == "Cancelled." and page.panel.run_button.isEnabled()


def test_each_mode_is_drawn_as_its_frame_arrives_and_the_rest_is_listed_greyed(page):
    """Issue 33: the page showed nothing until every mode was done; the job now streams a frame per finished
    configuration (the result so far, ``pending`` the rest) and the page draws what has arrived."""
    full = make_result()
    page.panel.run_button.click()
    handle = page.started[0][2]
    first = {**full, "rows": full["rows"][:2], "pending": [("model", 1), ("pipeline-gpipe", 1)]}
    handle.frame.emit(first)
    assert page.table.rowCount() == 4
    assert [cell(page, i, "mode") for i in range(4)] == ["single", "DDP", "model-parallel", "GPipe M=1"]
    assert cell(page, 1, "loss gap").endswith("✓") and cell(page, 2, "samples/s") == "measuring…"
    assert cell(page, 3, "samples/s") == "to come"
    assert not page.table.item(2, 0).flags() & Qt.ItemFlag.ItemIsSelectable  # no timeline to draw yet
    assert page.timeline.selector.count() == 2 and not page.timeline.empty.shown  # single's timeline at once
    assert len(page.plots.loss.getPlotItem().listDataItems()) == 2
    assert page.panel.cancel_button.isEnabled() and page.result is None  # still running: not the result yet
    handle.end("finished", "", full)
    assert page.table.rowCount() == 11 and page.result is full and page.timeline.selector.count() == 11


@pytest.mark.parametrize(("field", "text", "words"), [
    ("microbatches", "1,x", "whole numbers separated by commas"),
    ("microbatches", "", "at least one"),
    ("microbatches", "0,2", "at least 1"),
    ("widths", "512,,abc", "hidden widths must be whole numbers"),
])
def test_bad_form_input_is_refused_in_one_sentence_before_anything_starts(page, field, text, words):
    getattr(page.form, field).setText(text)
    page.panel.run_button.click()
    assert page.started == [] and words in page.panel.status.text() and page.panel.run_button.isEnabled()
    assert "\n" not in page.panel.status.text() and "Traceback" not in page.panel.status.text()


def test_no_mode_chosen_is_refused(page):
    for box in page.form.mode_boxes.values():
        box.setChecked(False)
    page.panel.run_button.click()
    assert page.started == [] and "at least one mode" in page.panel.status.text()


def test_a_failed_job_shows_its_sentence_not_a_traceback(page):
    page.show_result(make_result())
    page.panel.run_button.click()
    handle = page.started[0][2]
    handle.end("failed", "4 ranks cannot split a model of 3 layers into stages: use at most 3 ranks\n"
                         "Traceback (most recent call last):\n  File ...")
    assert page.panel.status.text() == ("Failed: 4 ranks cannot split a model of 3 layers into stages: use at most "
                                        "3 ranks")
    assert page.panel.error.startswith("4 ranks")
    assert page.panel.run_button.isEnabled() and not page.panel.cancel_button.isEnabled()
    assert page.table.rowCount() == 11  # what was shown before stays


def test_the_paper_check_button_is_there_only_with_its_checks(qtbot, monkeypatch):
    check = PaperCheck(name="huang_gpipe_bubble", claim="The bubble is (p−1)/(m+p−1).", paper="Huang et al. 2019",
                       paper_setup="-", our_setup="-", runner="x:y")
    monkeypatch.setattr(modes_page, "CHECKS", {})
    without = ModesPage(SimpleNamespace())
    qtbot.addWidget(without)
    assert without.check_panel is None
    monkeypatch.setattr(modes_page, "CHECKS", {"huang_gpipe_bubble": check, "other": check})
    handles: list[FakeHandle] = []
    with_check = ModesPage(SimpleNamespace(start=lambda request: handles.append(FakeHandle()) or handles[-1]))
    qtbot.addWidget(with_check)
    panel = with_check.check_panel
    assert panel is not None and panel.checks == [check] and panel.run_button.parent() is not None
    panel.run_button.click()  # the check runs as a job; its verdict lands beside the claim
    handles[0].end("finished", "", [{"name": "huang_gpipe_bubble", "verdict": "FAIL", "passed": False,
                                     "seconds": 3.0, "measures": []}])
    assert "FAIL" in with_check.verdicts.text() and "huang_gpipe_bubble" in with_check.verdicts.text()


def test_the_training_settings_show_only_beside_the_data_parallel_page(qtbot, tmp_path):
    from studio.core.runs.store import RunStore
    from studio.gui.app.main_window import MainWindow
    from tests.gui.conftest import new_session

    win = MainWindow(new_session(RunStore(tmp_path)), probe_backend=False)
    win.shell.confirm_close = lambda: True
    qtbot.addWidget(win)
    win.show()
    lab = win.pages.tab("parallel_lab")
    win.tabs.setCurrentWidget(lab)
    assert lab.pages.currentIndex() == 0 and not win.settings.isVisible()  # the modes page has its own form
    lab.page("data_parallel")
    assert win.settings.isVisible()  # it measures the current config
    lab.page("schedule")
    assert not win.settings.isVisible()
