"""The paper checks in the GUI: the demo panel's "Paper check" button (a background job, its result beside the
claim, "Show this set-up", stop) and the Paper checks view (every check of CHECKS, Run selected, the detail).
The cheap quadratic check runs for real, in the warm back end."""

from __future__ import annotations

import html
import multiprocessing

import pytest

from studio.core.checks.catalog import CHECKS, checks_for_demo
from studio.core.runs.store import RunStore
from studio.engine.jobs import backend
from studio.gui.demos.lab import VIEWS, TeachingLab
from studio.gui.tabs import find
from studio.gui.tabs.paper_checks import OURS, SECONDS, VERDICT, PaperChecksTab
from studio.gui.widgets.check_panel import IDLE_TEXT, RUNNING_TEXT
from tests.gui.conftest import new_session

CHEAP = "quadratic_gd_newton"


@pytest.fixture(scope="module", autouse=True)
def warm():
    backend.start_warm()
    yield
    backend.stop_warm()


@pytest.fixture
def session(qtbot):
    s = new_session(RunStore())
    yield s
    s.shutdown(wait_s=5)
    assert multiprocessing.active_children() == []


@pytest.fixture
def lab(qtbot, session):
    tab = TeachingLab(session)
    tab.resize(1280, 800)
    qtbot.addWidget(tab)
    tab.show()
    return tab


def test_only_demos_with_a_check_show_the_button(lab):
    for name in VIEWS:
        view = lab.open(name)
        has = bool(checks_for_demo(name))
        assert (view.check_panel is not None) == has, name
        if has:
            assert view.check_panel.run_button.isVisible()
            assert view.check_panel.run_button.parentWidget() is view.compute_button.parentWidget()


def test_the_race_runs_its_check_and_shows_the_paper_beside_ours(qtbot, lab):
    view = lab.open("optimizer_race")
    panel = view.check_panel
    check = CHECKS[CHEAP]
    assert check.paper_setup[:40] in panel.text.text()  # the set-ups are there before a run
    panel.run_button.click()
    assert panel.busy and panel.run_button.text() == RUNNING_TEXT
    assert lab.session.running("check") == [panel.job.handle]
    qtbot.waitUntil(lambda: not panel.busy, timeout=120_000)
    assert panel.run_button.text() == IDLE_TEXT
    (outcome,) = panel.outcomes
    assert outcome["name"] == CHEAP and outcome["verdict"] == "PASS"
    text = panel.text.text()
    assert "PASS" in text and "#2e9e44" in text  # the coloured verdict
    assert "ours <b>69</b> vs paper converges" in text  # GD at η = 1.9 arrives at step 69, as the paper says
    assert check.our_setup[:40] in text and check.paper_setup[:40] in text
    assert not view.busy  # the demo's own job is not touched


def test_show_this_setup_loads_the_preset_into_the_form(lab):
    view = lab.open("optimizer_race")
    view.set_params({"function": "rosenbrock", "optimizers": "adam"})
    (button,) = view.check_panel.preset_buttons
    button.click()
    preset = CHECKS[CHEAP].preset
    assert all(view.params[k] == v for k, v in preset.items())
    assert view.param_widgets["optimizers"].text() == preset["optimizers"]
    assert view.param_widgets["function"].currentText() == "quadratic"


def test_the_check_can_be_stopped(qtbot, lab):
    view = lab.open("optimizer_race")
    panel = view.check_panel
    panel.run_button.click()
    panel.run_button.click()  # "Stop check"
    qtbot.waitUntil(lambda: not panel.busy, timeout=60_000)
    assert panel.job.handle.state == "stopped" and panel.outcomes == []
    assert panel.run_button.text() == IDLE_TEXT


def test_the_view_lists_every_check_and_runs_the_selected_one(qtbot, session):
    assert find("paper_checks").group == "Learn"
    tab = PaperChecksTab(session)
    qtbot.addWidget(tab)
    tab.resize(1024, 700)
    tab.show()
    assert tab.table.rowCount() == len(CHECKS) and tab.names == list(CHECKS)
    row = tab.names.index(CHEAP)
    tab.table.selectRow(row)
    assert CHECKS[CHEAP].our_setup[:40] in tab.detail.text()
    tab.run_selected_button.click()
    assert tab.busy and not tab.run_all_button.isEnabled() and tab.stop_button.isEnabled()
    qtbot.waitUntil(lambda: not tab.busy, timeout=120_000)
    assert tab.table.item(row, VERDICT).text() == "PASS"
    assert tab.table.item(row, OURS).text() == "69 · 52 · 1"
    assert "ours <b>1</b> vs paper 1 step" in tab.detail.text()
    assert tab.run_all_button.isEnabled() and "1 of 1" in tab.status.text()
    others = [tab.table.item(r, VERDICT).text() for r in range(tab.table.rowCount()) if r != row]
    assert set(others) <= {"—"}  # the others were not run


def test_stop_in_the_view_drops_the_remaining_checks(qtbot, session):
    tab = PaperChecksTab(session)
    qtbot.addWidget(tab)
    tab.run_all()
    tab.stop_button.click()
    qtbot.waitUntil(lambda: not tab.busy, timeout=60_000)
    assert tab.pending == [] and tab.run_all_button.isEnabled()
    assert all(tab.table.item(r, VERDICT).text() == "—" for r in range(tab.table.rowCount()))


# --- issue 33.3: one place for a check's outcome, whoever ran it ------------------------------------------------
def test_a_check_run_in_the_teaching_lab_shows_in_the_paper_checks_view(qtbot, lab, session):
    view = PaperChecksTab(session)  # open before the lesson's check runs …
    qtbot.addWidget(view)
    row = view.names.index(CHEAP)
    assert view.table.item(row, VERDICT).text() == "—" and "none run yet" in view.status.text()
    panel = lab.open("optimizer_race").check_panel
    panel.run_button.click()
    qtbot.waitUntil(lambda: not panel.busy, timeout=120_000)
    (outcome,) = panel.outcomes
    qtbot.waitUntil(lambda: view.table.item(row, VERDICT).text() == outcome["verdict"], timeout=10_000)
    assert view.table.item(row, OURS).text() == "69 · 52 · 1"
    assert view.table.item(row, SECONDS).text() == f"{outcome['seconds']:.1f}"
    assert view.status.text() == f"{len(CHECKS)} checks; 1 run, 1 PASS."
    later = PaperChecksTab(session)  # … and one opened after it
    qtbot.addWidget(later)
    assert later.table.item(row, VERDICT).text() == "PASS" and later.outcomes[CHEAP]["seconds"] == outcome["seconds"]


def test_a_check_run_by_the_cli_shows_in_the_view_when_it_is_shown(qtbot, session):
    from tests.conftest import run_cli

    view = PaperChecksTab(session)
    qtbot.addWidget(view)
    row = view.names.index(CHEAP)
    done = run_cli("check", CHEAP, "--json")
    assert done.returncode == 0, done.stderr
    assert view.table.item(row, VERDICT).text() == "—"  # not shown: not read yet
    view.show()  # shown (again): what `studio check` kept is read
    assert view.table.item(row, VERDICT).text() == "PASS"
    assert "Last run" in (view.table.selectRow(row) or view.detail.text())


def test_a_check_with_a_changed_set_up_is_not_kept(studio_home):
    from studio.core.checks import results
    from tests.conftest import run_cli

    done = run_cli("check", CHEAP, "--set", "steps=150", "--json")
    assert done.returncode in (0, 3), done.stderr
    assert results.kept() == {}


def test_a_result_shows_its_seeds_and_margin_and_a_method_check_says_what_it_is(qtbot, session):
    from studio.core.checks.base import CheckOutcome, Measure
    from studio.core.checks.stats import over_seeds
    from studio.gui.widgets.paper_check import METHOD_NOTE, outcome_html

    gain = Measure.above("dropout: test accuracy − unregularised (pt)", over_seeds([8.0, 9.0, 10.0, 7.0, 11.0]),
                         0.0, "1.60 % → 1.25 %")
    plain = Measure.at_least("sparsity (%)", 92.0, 90.0, "92 %")
    outcome = CheckOutcome(CHECKS["regularisation_gap"], (gain, plain), 12.0).to_dict()
    text = outcome_html(CHECKS["regularisation_gap"], outcome)
    assert "ours <b>9</b> ± 0.71 (5 seeds, margin 1.5) vs paper 1.60 % → 1.25 %" in text
    assert "[mean − 2.132 × s.e. &gt; 0]" in text
    assert "ours <b>92</b> vs paper 92 %" in text  # a measure without statistics reads as before
    note = html.escape(METHOD_NOTE)
    assert note not in text and note in outcome_html(CHECKS["scaling_laws"], None)
    tab = PaperChecksTab(session)
    qtbot.addWidget(tab)
    labels = [tab.table.item(r, 0).text() for r in range(tab.table.rowCount())]
    assert labels == [f"{n} (method check)" if CHECKS[n].kind == "method check" else n for n in tab.names]
    assert "scaling_laws (method check)" in labels  # the method checks are listed apart, after the reproductions
