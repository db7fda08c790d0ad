"""The Compare tab on real short runs (the shared ``queued_runs``), and the Queue tab: Add to queue, a sweep,
cancel, then the window closes and the queued runs still finish (a detached scheduler runs them)."""

import pytest
from PySide6.QtCore import Qt

from studio.core.config import RunConfig
from studio.core.runs.queue import RunQueue
from studio.core.runs.store import RunStore
from studio.gui.app.main_window import MainWindow
from studio.gui.app.status_bar import StatusBar
from tests.conftest import TINY_CONFIG, wait_for
from tests.gui.conftest import new_session


def column(table, title: str) -> int:
    return [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())].index(title)


def test_compare_tab_table_parallel_coordinates_and_diff(qtbot, queued_runs):
    home, _, store, ids = queued_runs
    session = new_session(RunStore(home))
    win = MainWindow(session, probe_backend=False)
    qtbot.addWidget(win)
    win.show()
    tab = win.pages.tab("Compare")
    win.tabs.setCurrentWidget(tab)
    # Qt asks a widget it renders for its metrics: an attribute named ``metric`` (QWidget.metric) crashed it
    assert not tab.grab().isNull()
    assert "Tick two or more runs" in tab.summary.text()
    chosen = [ids[0], ids[2], ids[3]]
    session.set_selection(chosen)  # the run list's selection is ticked in the Compare tab's own list
    assert tab.picker.checked() == [i for i in tab.picker.run_ids() if i in chosen]
    assert tab.summary.text() == "3 runs · 2 settings differ"
    names = tab.picker.names()
    assert names == {i: win.run_list.names[i] for i in names}  # named as the run list names them
    table = tab.table
    assert table.rowCount() == 3
    lr, acc = column(table, "optimizer.lr"), column(table, "test_acc")
    assert column(table, "train.epochs") < acc
    table.sortByColumn(acc, Qt.SortOrder.DescendingOrder)
    shown = [float(table.item(r, acc).text()) for r in range(3)]
    assert shown == sorted(shown, reverse=True)
    by_id = {table.item(r, 0).data(Qt.ItemDataRole.UserRole): table.item(r, lr).text() for r in range(3)}
    assert by_id == {ids[0]: "0.003", ids[2]: "0.03", ids[3]: "0.001"}
    table.sortByColumn(lr, Qt.SortOrder.AscendingOrder)  # numbers sort as numbers, not as text
    assert [table.item(r, lr).text() for r in range(3)] == ["0.001", "0.003", "0.03"]

    assert tab.metric_choice.currentText() == "test_acc" and len(tab.parallel.lines) == 3
    assert {t.toPlainText() for t in tab.parallel.labels} >= {"optimizer.lr (log)", "train.epochs", "test_acc"}
    tab.metric_choice.setCurrentText("train_loss")
    assert any(t.toPlainText() == "train_loss" for t in tab.parallel.labels)

    row = tab.picker.run_ids().index(ids[3])  # unticked in the Compare tab's own list: the selection follows
    tab.picker.item(row).setCheckState(Qt.CheckState.Unchecked)
    assert session.selected_runs() == [i for i in tab.picker.run_ids() if i in (ids[0], ids[2])]
    assert tab.table.rowCount() == 2 and win.run_list.selected_ids() == session.selected_runs()
    session.set_selection(chosen)

    tab.views.setCurrentIndex(1)
    assert tab.left.currentData() == ids[0] and tab.right.currentData() == ids[2]
    full = tab.diff.rowCount()
    tab.only_changed.setChecked(True)
    assert tab.diff.rowCount() == 1 and tab.diff.item(0, 0).text() == "optimizer.lr"
    assert [tab.diff.item(0, c).text() for c in (1, 2)] == ["0.003", "0.03"] and full > 20
    win.close()
    session.shutdown()


def test_queue_from_the_gui_survives_closing_the_window(qtbot, window, studio_home):
    session = window.session
    session.set_config(RunConfig.from_toml(TINY_CONFIG).with_overrides(["train.epochs=1"]))
    tab = window.pages.tab("Queue")
    window.tabs.setCurrentWidget(tab)
    tab.values[0].setText("0.5, 0.05")
    assert tab.preview.text().startswith("2 runs: lr=0.5, lr=0.05") and tab.sweep_button.isEnabled()
    swept = tab.queue_sweep()  # queued first, then cancelled below: they never start
    for run_id in swept:
        session.cancel_queued(run_id)
    window.queue_action.trigger()
    tab.add_button.click()
    queued = [r.id for r in session.store.list() if r.id not in swept]
    assert len(queued) == 2
    window.run_list.refresh()
    tree = window.run_list.tree
    status = {tree.topLevelItem(i).data(0, Qt.ItemDataRole.UserRole): tree.topLevelItem(i).text(1)
              for i in range(tree.topLevelItemCount())}
    assert status[queued[0]] in ("queued #1", "queued #2")  # the last one added waits behind the first
    assert status[swept[0]] == status[swept[1]] == "cancelled"
    tab.values[0].setText("0:1:0")
    assert tab.preview.text().startswith("⚠") and not tab.sweep_button.isEnabled()

    window.close()  # the window and its session go; the queue does not
    session.shutdown()
    store = RunStore(studio_home)
    wait_for(lambda: all(store.get(r).status in ("finished", "failed") for r in queued), 120, "the queued runs")
    assert [store.get(r).status for r in queued] == ["finished", "finished"]
    assert [store.get(r).status for r in swept] == ["cancelled", "cancelled"]
    assert all(store.metrics(r) == {} for r in swept)
    wait_for(lambda: RunQueue(store).lease_holder() is None, 30, "the scheduler to exit")


@pytest.fixture(autouse=True)
def _no_error_dialogs(monkeypatch):
    """An error here is a test failure, not a dialog."""
    def fail(self, title, message):
        raise AssertionError(f"{title}: {message}")

    monkeypatch.setattr(StatusBar, "show_error", fail)


def test_runs_started_elsewhere_appear_and_their_curves_grow(qtbot, window):
    """A run the scheduler (another process) runs: the list notices it, and once selected its new metric rows
    reach the curves without it being one of the window's jobs."""
    session, store = window.session, window.session.store
    follower = session.follower
    follower.check()
    other = RunStore(store.home)  # the scheduler's own connection
    run = other.create_run(RunConfig.from_toml(TINY_CONFIG))
    with qtbot.waitSignal(session.runs_changed, timeout=3000):
        follower.check()
    assert run.id in window.run_list.run_ids()
    other.set_status(run.id, "running")
    other.log_metrics(run.id, [(1, "train/loss", 1.0, 0.0), (2, "train/loss", 0.8, 0.0)])
    session.set_selection([run.id])
    qtbot.waitUntil(lambda: not window.curves_pane.curves.loading, timeout=5000)  # read off the GUI thread
    assert list(window.curves_pane.curves.series[run.id]["train/loss"].values) == [1.0, 0.8]  # loaded on selection
    other.log_metrics(run.id, [(3, "train/loss", 0.5, 0.0), (4, "train/loss", 0.4, 0.0)])
    with qtbot.waitSignal(session.metrics, timeout=3000) as got:
        follower.check()
    assert got.args[0] == run.id and [r[0] for r in got.args[1]] == [3, 4]
    assert list(window.curves_pane.curves.series[run.id]["train/loss"].steps) == [1, 2, 3, 4]
    other.set_status(run.id, "finished")
    follower.check()
    assert run.id not in follower._seen  # an ended run is no longer followed


def test_the_empty_parallel_plot_points_to_the_compare_views_own_tick_list(window):
    tab = window.pages.tab("Compare")
    window.tabs.setCurrentWidget(tab)
    tab.views.setCurrentIndex(0)  # parallel coordinates
    hint = tab.parallel.empty
    assert hint.shown and "Tick two or more runs in the list on the left" in hint.text()
    assert "Training tab" not in hint.text()
    left_of = tab.picker.mapToGlobal(tab.picker.rect().topRight()).x()
    assert left_of < tab.parallel.mapToGlobal(tab.parallel.rect().topLeft()).x()  # the tick list is on its left
