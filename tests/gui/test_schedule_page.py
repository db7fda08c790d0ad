"""The Parallelism lab's Scheduling page: finished runs replayed in a background job, the table, the JCT bars, the
Gantt per policy (one lane per GPU, one bar per job and slice), bad input in one sentence, the paper check."""

from __future__ import annotations

import pytest

from studio.core.runs.store import RunStore
from studio.gui.parallel.schedule_page import SchedulePage, lowest_mean_jct, time_unit
from studio.gui.tabs.parallel_lab import PAGES, ParallelLab
from tests.gui.conftest import new_session
from tests.unit.schedule_store import finished_store


@pytest.fixture()
def page(qtbot, studio_home):
    finished_store(studio_home)
    session = new_session(RunStore(studio_home))
    lab = ParallelLab(session)
    qtbot.addWidget(lab)
    lab.resize(1280, 800)
    lab.show()
    schedule = lab.page("schedule")
    schedule.result = None  # it opened on its shipped recording: a test waits for the replay it asks for
    yield schedule
    session.shutdown(wait_s=10)


def test_the_page_is_registered_once():
    assert [p.id for p in PAGES].count("schedule") == 1
    assert PAGES[[p.id for p in PAGES].index("schedule")].load() is SchedulePage


def test_run_replays_the_finished_runs_and_draws_every_policy(qtbot, page):
    page.gpus.setValue(2)
    page.policy_boxes["srtf"].setChecked(True)
    page.arrivals.setCurrentIndex(page.arrivals.findData("together"))
    page.run()
    qtbot.waitUntil(lambda: page.result is not None or page.panel.error is not None, timeout=60_000)
    assert page.panel.error is None, page.panel.error
    assert [page.table.item(i, 0).text() for i in range(page.table.rowCount())] == [
        "FIFO", "SJF", "SRTF", "LAS (Tiresias)"]
    assert "4 jobs on 2 GPUs" in page.panel.status.text()
    assert page.gantt_policy.currentData() == "las"  # the policy the claim is about, first
    las = next(r for r in page.result["policies"] if r["policy"] == "las")
    slices = sum(len(j["intervals"]) for j in las["jobs"]) + 1  # the 2-GPU job's slices draw a bar on each GPU
    assert len(page.gantt.bars) >= slices and page.gantt.lanes == ["GPU 0", "GPU 1"]
    assert {b.kind.split(" · ")[0] for b in page.gantt.bars} == {"short-a", "long", "wide", "short-b"}
    page.gantt_policy.setCurrentIndex(page.gantt_policy.findData("fifo"))
    fifo = next(r for r in page.result["policies"] if r["policy"] == "fifo")
    assert len(page.gantt.bars) == sum(len(j["intervals"]) * (2 if j["id"] == _id(page, "wide") else 1)
                                       for j in fifo["jobs"])
    assert f"{fifo['preemptions']} preemptions" in page.gantt_caption.text()


def _id(page: SchedulePage, name: str) -> str:
    return next(j["id"] for j in page.result["jobs"] if j["name"] == name)


def test_bad_input_is_one_sentence_on_the_page(qtbot, page):
    for box in page.policy_boxes.values():
        box.setChecked(False)
    page.run()
    assert page.panel.status.text() == "choose at least one policy to replay" and page.panel.handle is None
    page.policy_boxes["fifo"].setChecked(True)
    page.gpus.setValue(1)  # the 'wide' run used 2 processes
    page.run()
    qtbot.waitUntil(lambda: page.panel.error is not None, timeout=60_000)
    assert "needs 2 GPUs but the cluster has only 1" in page.panel.status.text()
    page.gpus.setValue(2)
    page.filter.setText("no-such-run")
    page.run()
    qtbot.waitUntil(lambda: not page.panel.busy, timeout=60_000)
    assert "no finished run matching 'no-such-run'" in page.panel.status.text()


def test_the_paper_check_runs_beside_the_claim(qtbot, page):
    assert "Tiresias" in page.claim.text()
    page.check_panel.run()
    qtbot.waitUntil(lambda: bool(page.check_panel.outcomes), timeout=120_000)
    assert page.check_panel.outcomes[0]["verdict"] == "PASS"
    assert "PASS" in page.check_panel.text.text()


def test_controls_have_tooltips_and_times_get_a_readable_unit(page):
    for w in (page.gpus, page.arrivals, page.repeat, page.filter, page.queued_only, page.panel.run_button,
              page.check_panel.run_button, *page.policy_boxes.values()):
        assert w.toolTip()
    assert time_unit(50) == ("s", 1.0) and time_unit(600) == ("min", 60.0) and time_unit(5 * 3600) == ("h", 3600.0)


def _row(policy: str, label: str, mean: float) -> dict:
    return {"policy": policy, "label": label, "mean_jct": mean}


@pytest.mark.parametrize(("means", "said"), [
    ((30.0, 12.0, 12.5), "Lowest mean JCT: SJF, 2.50× below FIFO's."),
    ((30.0, 12.0, 12.0), "Lowest mean JCT: SJF and LAS (tied), 2.50× below FIFO's."),
    ((12.0, 12.0, 12.0), "All 3 policies tie on mean JCT (12 s): they schedule these jobs alike."),
    ((12.0,), "Mean JCT under FIFO: 12 s."),
])
def test_the_lowest_mean_jct_says_when_policies_tie(means, said):
    """Issue 33.8: "Lowest mean JCT: FIFO" when every policy gave the same JCT."""
    rows = [_row(p, label, m) for (p, label), m in zip((("fifo", "FIFO"), ("sjf", "SJF"), ("las", "LAS")), means,
                                                       strict=False)]
    assert lowest_mean_jct(rows, "s", 1.0) == said


def test_a_replay_where_every_policy_ties_says_so(qtbot, page):
    page.gpus.setValue(64)  # room for every run at once: no policy makes a job wait, every JCT is the same
    page.arrivals.setCurrentIndex(page.arrivals.findData("together"))
    page.run()
    qtbot.waitUntil(lambda: page.result is not None or page.panel.error is not None, timeout=60_000)
    assert page.panel.error is None, page.panel.error
    means = {r["mean_jct"] for r in page.result["policies"]}
    assert len(means) == 1  # the set-up really ties
    assert "policies tie on mean JCT" in page.panel.status.text() and "Lowest" not in page.panel.status.text()
