"""Issue 13, a classroom-ready interface: no run lost to a stray key, runs named by what differs, curves
that can be read and told apart, settings with units and mismatch warnings."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QCursor
from PySide6.QtWidgets import QApplication, QComboBox

from studio.gui.app import commands


class FakeJob:
    """Stands in for a training job: records whether it was told to stop."""

    def __init__(self) -> None:
        self.stopped = False
        self.finished = False

    def stop(self) -> None:
        self.stopped = True

    pause = resume = kill = lambda self: None


def _running(window) -> FakeJob:
    job = FakeJob()
    window.session.jobs["run-1"] = job
    window.session._set_state("running")
    return job


def test_esc_in_a_dialog_or_popup_leaves_the_run_training(qtbot, window):
    job = _running(window)
    window.activateWindow()
    window.about_action.trigger()
    box = window.shell.about_box
    qtbot.waitUntil(box.isVisible)
    qtbot.keyClick(box, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not box.isVisible())  # Esc closed the About box …
    assert not job.stopped  # … and only that
    combo = window.findChild(QComboBox, "data_choice")
    combo.showPopup()
    popup = QApplication.activePopupWidget()
    qtbot.keyClick(popup or combo, Qt.Key.Key_Escape)
    qtbot.keyClick(window, Qt.Key.Key_Escape)  # Esc on the window itself: nothing either
    assert not job.stopped
    assert window.stop_action.shortcut().toString() == "Ctrl+."
    window.stop_action.trigger()  # the explicit Stop still stops
    assert job.stopped
    window.session.jobs.clear()


# --- runs you can tell apart ------------------------------------------------------------------------
def _seed(store, overrides: list[str], steps=(20, 40, 60), epoch_every=40):
    """A run in the store with a few metric rows (no training: the GUI only reads them)."""
    from studio.core.config import RunConfig

    run = store.create_run(RunConfig().with_overrides(overrides))
    rows = []
    for i, step in enumerate(steps):
        rows += [(step, "train/loss", 2.0 / (i + 1), 1000.0 + 2 * i), (step, "lr", 0.001, 1000.0 + 2 * i)]
        if step % epoch_every == 0:
            rows.append((step, "epoch", step // epoch_every, 1000.0 + 2 * i))
    store.log_metrics(run.id, rows)
    store.set_status(run.id, "finished")
    return run.id


def test_runs_are_named_by_the_rule_and_coloured_alike_in_list_and_plots(window):
    store = window.session.store
    sgd = _seed(store, ["optimizer.name=sgd", "optimizer.lr=0.05", "train.batch_size=256"])
    adam = _seed(store, ["optimizer.lr=0.001"])
    window.session.runs_changed.emit()
    names = window.run_list.names
    # the model, the data and what differs from the defaults (sgd's own lr is 0.05; adam's 0.001)
    assert names[sgd] == "mlp · fashion_mnist_small · sgd · batch 256" and names[adam] == "mlp · fashion_mnist_small"
    window.session.set_selection([sgd, adam])
    colours = window.curves_pane.curves.colours()
    assert len(set(colours.values())) == 2
    assert window.run_list.colours == colours  # the run list is the plots' colour key
    assert "mlp · fashion_mnist_small · sgd · batch 256" in window.curves_pane.curves.key.text()
    assert window.curves_pane.curves.plots["loss"].legend is None  # nothing on top of the data


def test_rename_notes_and_delete_from_the_run_list(window):
    store = window.session.store
    a = _seed(store, ["optimizer.lr=0.01"])
    b = _seed(store, ["optimizer.lr=0.02"])
    window.session.runs_changed.emit()
    runs = window.run_list
    runs.ask_text = lambda title, label, text, multiline: "noisy labels, take two" if multiline else "baseline"
    runs._select([a])
    runs.tree.setCurrentItem(runs.tree.topLevelItem(runs.run_ids().index(a)))
    menu = {act.text(): act for act in runs.context_menu().actions()}
    assert {"Rename…", "Notes…", "Delete…"} <= set(menu)
    runs.rename_dialog(a)
    runs.notes_dialog(a)
    assert store.get(a).name == "baseline" and runs.names[a] == "baseline"
    assert store.notes()[a] == "noisy labels, take two"
    row = runs.tree.topLevelItem(runs.run_ids().index(a))
    assert row.text(0) == "baseline" and row.text(6) == "noisy labels, take two"
    runs.rename(a, "")  # back to the naming rule's name
    assert runs.names[a] == "mlp · fashion_mnist_small · adam lr=0.01"
    runs.confirm_delete = lambda ids: False
    assert runs.delete_runs([a]) == 0 and a in runs.run_ids()
    runs.confirm_delete = lambda ids: True
    assert runs.delete_runs([a]) == 1
    assert runs.run_ids() == [b] and a not in store.notes()
    window.session.jobs[b] = FakeJob()  # a run still training cannot be deleted
    assert runs.delete_runs([b]) == 0
    window.session.jobs.clear()


def test_x_axis_modes_log_x_first_point_and_raw_curve_behind_smoothing(qtbot, window):
    store = window.session.store
    run = _seed(store, ["train.batch_size=64"], steps=(20, 40, 60, 80), epoch_every=40)
    window.session.runs_changed.emit()
    window.session.set_selection([run])
    curves = window.curves_pane.curves
    qtbot.waitUntil(lambda: not curves.loading, timeout=5000)  # read off the GUI thread
    assert curves.stack.currentWidget() is curves.plot_scroll  # the plots (in their scroll area)
    item = curves.items[(run, "train/loss")]
    assert list(item.xData) == [20, 40, 60, 80]
    curves.set_x_mode("epoch")
    assert list(item.xData) == [0.5, 1.0, 1.5, 2.0]
    assert curves.plots["loss"].getAxis("bottom").labelText == "epoch"
    curves.set_x_mode("samples")
    assert list(item.xData) == [20 * 64, 40 * 64, 60 * 64, 80 * 64]
    curves.set_x_mode("wall")
    assert list(item.xData) == [0.0, 2.0, 4.0, 6.0]
    curves.set_log_x(True)
    assert list(item.xData) == [2.0, 4.0, 6.0] and curves.plots["loss"].getAxis("bottom").logMode
    curves.set_log_x(False)
    curves.set_x_mode("step")
    curves.smooth_box.setValue(0.9)
    curves.redraw()
    raw = curves.raw_items[(run, "train/loss")]
    assert raw.isVisible() and list(raw.yData) == [2.0, 1.0, 2 / 3, 0.5]
    assert item.yData[0] == 2.0 and item.yData[-1] > 0.5  # debiased: starts at the data, lags behind it
    assert raw.opts["pen"].color().alpha() < 100
    window.session.set_selection([])
    assert curves.stack.currentWidget() is curves.hint  # a hint, not empty axes


def test_first_live_point_is_drawn(qtbot, window):
    curves = window.curves_pane.curves
    curves.show_runs({"live": {}}, {"live": "live"})
    curves.add_rows("live", [(20, "train/loss", 1.5, 1000.0)])
    curves.redraw()
    item = curves.items[("live", "train/loss")]
    assert curves.point_count("live", "train/loss") == 1 and item.opts["symbol"] == "o"
    curves.add_rows("live", [(40, "train/loss", 1.0, 1001.0)])
    curves.redraw()
    assert item.opts["symbol"] is None
    view = curves.plots["loss"].getViewBox()
    qtbot.waitUntil(lambda: view.viewRange()[0][1] >= 40)  # autoscale follows the newest point


def test_lr_axis_labels_decades_without_piling_up():
    from studio.gui.plots.log_axis import LogAxis

    axis = LogAxis("left")
    axis.setLogMode(False, True)
    levels = axis.tickValues(np.log10(1e-4), np.log10(0.1), 300)
    labelled = levels[0][1]
    assert [round(10 ** v, 6) for v in labelled] == [1e-4, 1e-3, 1e-2, 1e-1]
    assert axis.tickStrings(labelled, 1.0, 1.0) == ["0.0001", "0.001", "0.01", "0.1"]
    assert all(s == "" for s in axis.tickStrings(levels[1][1], 1.0, None))
    short = axis.tickValues(np.log10(0.0009), np.log10(0.006), 300)[0][1]  # under a decade: 1, 2, 5
    assert [float(f"{10 ** v:.3g}") for v in short] == [0.001, 0.002, 0.005]


# --- settings: basic/advanced, units, mismatch warnings before training --------------------------------
def test_settings_split_basic_advanced_with_units_and_one_val_fraction(window):
    from PySide6.QtWidgets import QLabel

    settings = window.settings
    assert window.settings.advanced_form.isHidden()  # advanced collapsed
    assert "checkpoint_every" in settings.advanced_form.widgets and "epochs" in settings.train_form.widgets
    labels = [w.text() for w in settings.findChildren(QLabel)]
    assert "checkpoint every (epochs)" in labels and "aug rotation (± degrees)" in labels
    settings.show_advanced(True)
    assert settings.advanced_form.isVisibleTo(settings)
    window.session.set_choice("data", "mnist")  # a catalog dataset splits by its own data.val_fraction
    form = settings.train_form
    assert not form.layout_.isRowVisible(form.widgets["val_fraction"])
    window.session.set_choice("data", "fashion_mnist_small")
    assert form.layout_.isRowVisible(form.widgets["val_fraction"])


def test_model_data_mismatch_is_warned_before_training(window):
    session = window.session
    session.set_choice("model", "linear_neuron")  # regression-only, on Fashion-MNIST
    assert window.settings.warnings.isVisibleTo(window) and "regression" in window.settings.warnings.text()
    asked = []
    window.shell.confirm_warnings = lambda warnings: asked.append(warnings) or False
    assert commands.train(window.shell) is None and not session.jobs and asked and "classification" in asked[0][0]
    session.set_choice("model", "mlp")
    session.set_choice("data", "moons")
    session.set_param("data", "n_samples", 70)  # 63 training points, batch 128: one step an epoch, no curve
    session.set_param("train", "epochs", 3)
    found = window.settings.check_fit()
    assert len(found) == 1 and "63 training samples" in found[0] and "stay empty" in found[0]
    QCursor.setPos(window.mapToGlobal(QPoint(window.width() - 20, window.height() // 2)))  # off the panel: a
    # note that goes under the pointer keeps its place (an earlier test may have left the pointer there)
    session.set_param("train", "batch_size", 4)
    assert window.settings.check_fit() == [] and not window.settings.warnings.isVisibleTo(window)


# --- trajectory landscapes ------------------------------------------------------------------------------
def test_trajectory_is_greyed_out_with_its_reason_for_a_run_without_path_points(window):
    from studio.core.config import RunConfig
    from studio.gui.tabs.landscape import LandscapeTab

    store = window.session.store
    short = store.create_run(RunConfig().with_overrides(["train.epochs=1"]))
    for name in ("step_0000000.pt", "step_0000070.pt", "final.pt"):  # what a 1-epoch run saves
        (short.dir / "checkpoints" / name).write_bytes(b"")
    store.set_status(short.id, "finished")
    full = store.create_run(RunConfig())
    (full.dir / "snapshots").mkdir()
    for name in ("step_0000000.pt", "step_0000070.pt", "step_0000140.pt"):  # a default run's snapshots
        (full.dir / "snapshots" / name).write_bytes(b"")
    (full.dir / "checkpoints" / "step_0000350.pt").write_bytes(b"")
    (full.dir / "checkpoints" / "final.pt").write_bytes(b"")
    store.set_status(full.id, "finished")
    window.session.runs_changed.emit()
    tab = window.pages.tab("Landscape")
    assert isinstance(tab, LandscapeTab)
    box = tab.kind_box
    index = box.findData("trajectory")
    assert tab.select_run(short.id)
    assert not box.model().item(index).isEnabled() and "2+ epochs" in tab.trajectory_reason
    assert "2+ epochs" in box.itemData(index, Qt.ItemDataRole.ToolTipRole)
    assert tab.select_run(full.id)
    assert box.model().item(index).isEnabled() and tab.trajectory_reason == ""


def test_regularisation_right_column_fits_a_narrow_view(qtbot):
    from studio.gui.demos.regularisation_view import RegularisationView

    view = RegularisationView(None)
    qtbot.addWidget(view)
    view.resize(800, 600)
    view.show()
    names = ("none", "dropout", "weight_decay", "augmentation")
    view.epochs = [{"epoch": e, "rows": {n: {"train_loss": 1 / (e + 1), "val_loss": 1.2 / (e + 1), "train_acc": 0.9,
                                             "val_acc": 0.8} for n in names}} for e in range(31)]
    view.player.set_count(31)
    view.show_frame(30)
    qtbot.wait(50)  # Qt lays out and paints on the next turns of its event loop
    needed = view.graphics.ci.layout.effectiveSizeHint(Qt.SizeHint.MinimumSize).width()
    assert needed <= view.graphics.width(), (needed, view.graphics.width())  # long titles no longer widen it
    assert view.panels[3].title.startswith("augmentation: gap")


def test_a_model_too_big_for_the_memory_is_said_before_train_and_refused_in_one_sentence(window, monkeypatch):
    """Issue 39.4: the yellow note names the figures as soon as the model is too big; Train does not ask "train
    anyway?" about it but refuses in one sentence, creating no run."""
    from studio.core.estimates import footprint

    monkeypatch.setattr(footprint.memory, "available_ram", lambda: 8 * 2**30)
    session = window.session
    session.set_choice("data", "fortunes")
    session.set_choice("model", "gpt_lm")
    for key, value in (("layers", 48), ("heads", 32), ("d_model", 4096)):
        session.set_param("model", key, value)
    assert window.settings.check_fit() == []  # nothing to ask about: Train itself refuses it
    note = window.settings.warnings.text()
    assert window.settings.warnings.isVisibleTo(window)
    assert "This gpt_lm needs at least 177.79 GiB: 36.01 GiB of weights (9.7 billion parameters)" in note
    assert "more than the 8.00 GiB available on this machine" in note and "--" not in note
    errors: list = []
    session.error.connect(lambda title, message: errors.append(message))
    window.shell.confirm_warnings = lambda warnings: (_ for _ in ()).throw(AssertionError("asked"))
    commands.train(window.shell)
    assert not session.jobs and len(errors) == 1 and "needs at least" in errors[0] and "\n" not in errors[0]
    assert session.store.list() == []
    session.set_param("model", "layers", 2)
    assert "needs at least" not in window.settings.warnings.text()
