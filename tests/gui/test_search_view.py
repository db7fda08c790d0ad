"""Issue 36: the Search view draws a finished study — the optimisation history (complete trials, pruned ones at
their last value, the best so far), fANOVA importances, a slice on a log axis and parallel coordinates — and
queues the best settings once per seed; without a study it says how to run one."""

import optuna

from studio.core.runs.queue import RunQueue
from studio.gui.tabs.search import SearchTab
from tests.gui.search_study import make_study


def _tab(qtbot, window) -> SearchTab:
    tab = window.pages.tab("Search")
    with qtbot.waitSignal(tab.study_shown, timeout=30_000):  # read on a thread of its own when first shown
        window.tabs.setCurrentWidget(tab)
    return tab


def test_without_a_study_the_view_says_how_to_run_one(qtbot, window):
    tab = _tab(qtbot, window)
    assert "studio search --space" in tab.summary.text()
    assert tab.history_hint.shown and not tab.repeat_button.isEnabled()


def test_a_finished_study_is_drawn_and_its_best_settings_queued_over_seeds(qtbot, window, monkeypatch):
    home = window.session.store.home
    make_study(home)
    study = optuna.load_study(study_name="lr-batch", storage=f"sqlite:///{home / 'search.db'}")
    complete = [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]
    pruned = [t for t in study.trials if t.state == optuna.trial.TrialState.PRUNED]
    assert complete and pruned
    tab = _tab(qtbot, window)
    assert tab.study_box.currentText() == "lr-batch"
    assert f"{len(complete)} complete, {len(pruned)} pruned" in tab.summary.text()

    items = tab.history.getPlotItem().listDataItems()
    best_line, dots, crosses = items
    assert list(dots.yData) == [t.value for t in complete]
    assert len(crosses.xData) == len(pruned)
    assert best_line.yData[-1] == max(t.value for t in complete)

    importances = tab.report["importances"]
    assert set(importances) == {"optimizer.lr", "train.batch_size"}
    assert importances["optimizer.lr"] > importances["train.batch_size"]  # the objective hangs on the lr
    assert not tab.importance_hint.shown
    assert tab.slice_key.currentText() == "optimizer.lr"  # the most important first
    slice_item = tab.slice.getPlotItem()
    assert slice_item.getAxis("bottom").logMode and len(slice_item.listDataItems()[0].xData) == len(complete)
    tab.slice_key.setCurrentText("train.batch_size")
    assert not tab.slice.getPlotItem().getAxis("bottom").logMode
    assert len(tab.parallel.lines) == len(complete)

    tab.seeds.setValue(3)
    assert tab.repeat_button.text() == "Queue the best settings with 3 seeds" and tab.repeat_button.isEnabled()
    monkeypatch.setattr(window.session.engine, "ensure_scheduler", lambda store: None)  # nothing trains here
    ids = tab.queue_best()
    assert len(ids) == 3
    store = window.session.store
    best = study.best_trial.params
    for seed, run_id in enumerate(ids):
        p = store.params(run_id)
        assert p["train.seed"] == seed and p["optimizer.lr"] == best["optimizer.lr"]
        assert p["train.batch_size"] == best["train.batch_size"]
    assert [e.run_id for e in RunQueue(store).entries()][-3:] == ids
