"""The real main window: Train, live curves, Stop, run list overlay, closing during a run."""

from __future__ import annotations

import multiprocessing
import time

from PySide6.QtCore import Qt

from studio.core.config import RunConfig


def press(qtbot, win, action):
    assert action.isEnabled()
    action.trigger()


def test_train_shows_live_curves_then_stop(qtbot, window):
    window.session.config = RunConfig().with_overrides(["train.epochs=300"])  # long enough to stop it
    window.settings.reload()
    press(qtbot, window, window.train_action)
    run_id = window.session.selected_runs()[0]
    qtbot.waitUntil(lambda: window.curves_pane.curves.point_count(run_id, "train/loss") >= 3, timeout=90_000)
    assert window.curves_pane.curves.point_count(run_id, "lr") >= 3
    eta = window.status.eta.text()  # the training job's ETA, in the words every job uses
    assert window.status.progress.value() > 0 and eta.startswith("Epoch ") and eta.endswith(("left", "ETA …"))
    assert not window.train_action.isEnabled() and not window.settings.isEnabled()
    t0 = time.monotonic()
    press(qtbot, window, window.stop_action)
    qtbot.waitUntil(lambda: window.session.state == "idle", timeout=15_000)
    assert time.monotonic() - t0 < 10
    run = window.session.store.get(run_id)
    assert run.status == "stopped" and (run.dir / "checkpoints" / "final.pt").exists()
    assert multiprocessing.active_children() == []
    assert window.train_action.isEnabled()
    statuses = {window.run_list.tree.topLevelItem(i).text(1) for i in range(window.run_list.tree.topLevelItemCount())}
    assert "stopped" in statuses


def test_run_list_overlays_selected_runs(qtbot, window):
    store = window.session.store
    ids = []
    for loss in (1.0, 2.0):  # two settings: the same ones would be one seed group, drawn as a band
        run = store.create_run(RunConfig().with_overrides([f"optimizer.lr={loss / 100}"]))
        store.log_metrics(run.id, [(s, "train/loss", loss / s, 0.0) for s in range(1, 6)])
        store.set_status(run.id, "finished", summary={"test_acc": 0.5})
        ids.append(run.id)
    window.session.runs_changed.emit()
    tree = window.run_list.tree
    assert tree.topLevelItemCount() == 2
    tree.selectAll()
    assert sorted(window.session.selected_runs()) == sorted(ids)
    qtbot.waitUntil(lambda: not window.curves_pane.curves.loading, timeout=5000)  # read off the GUI thread
    for run_id in ids:
        assert window.curves_pane.curves.point_count(run_id, "train/loss") == 5
    tree.clearSelection()
    tree.topLevelItem(0).setSelected(True)
    assert len(window.curves_pane.curves.series) == 1


def test_forms_edit_the_config(qtbot, window):
    form = window.settings.forms["optimizer"]
    form.combo.setCurrentText("sgd")
    assert window.session.config.optimizer.name == "sgd"
    spin = [w for w in form.findChildren(object) if w.objectName() == "param_momentum"][0]
    spin.setValue(0.9)
    assert window.session.config.optimizer.params["momentum"] == 0.9
    model = window.settings.forms["model"]
    widths = [w for w in model.findChildren(object) if w.objectName() == "param_widths"][0]
    widths.setText("64,32")
    widths.editingFinished.emit()
    assert window.session.config.model.params["widths"] == [64, 32]
    widths.setText("64,x")
    widths.editingFinished.emit()
    assert window.status.last_error and "model.widths" in window.status.last_error[1]
    assert window.session.config.model.params["widths"] == [64, 32]


def test_bad_run_shows_the_error_and_window_stays_usable(qtbot, window):
    window.session.config = RunConfig().with_overrides(["data.name=moons", "model.name=cnn"])
    window.train_action.trigger()
    qtbot.waitUntil(lambda: window.session.state == "idle", timeout=60_000)
    assert window.status.last_error is not None and "image data" in window.status.last_error[1]
    run = window.session.store.list()[0]
    assert run.status == "failed"
    assert window.train_action.isEnabled()


def test_closing_during_a_run_asks_then_stops(qtbot, window):
    window.session.config = RunConfig().with_overrides(["data.name=moons", "train.epochs=5000"])
    asked = []
    window.shell.confirm_close = lambda: asked.append(1) or False
    window.train_action.trigger()
    run_id = window.session.selected_runs()[0]
    qtbot.waitUntil(lambda: window.curves_pane.curves.point_count(run_id, "train/loss") >= 1, timeout=90_000)
    window.close()
    assert asked and window.isVisible() and window.session.jobs  # the user said no
    window.shell.confirm_close = lambda: True
    window.close()
    assert not window.isVisible()
    assert window.session.store.get(run_id).status == "stopped"
    assert multiprocessing.active_children() == []


def test_ctrl_return_is_the_train_shortcut(window):
    assert window.train_action.shortcut().toString() == "Ctrl+Return"
    assert window.stop_action.shortcut().toString() == "Ctrl+."
    assert window.train_action.shortcutContext() == Qt.ShortcutContext.ApplicationShortcut
