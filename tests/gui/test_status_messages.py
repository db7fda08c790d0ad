"""Status messages: each said once in its one place, capitalised, the ETA sensible while paused and never
clipped, and skipped files named behind Details…."""

from PySide6.QtWidgets import QMessageBox

from studio.gui.session.messages import count
from studio.gui.widgets.data_import import skipped_details


def open_error_boxes(window):
    return [b for b in window.findChildren(QMessageBox) if b.isVisible() and b.icon() == QMessageBox.Icon.Warning]


def test_an_error_is_shown_once_and_cleared_by_the_next_success(qtbot, window):
    window.status.show_message("Ready")
    window.status.show_error("Import failed", "the archive is empty")
    boxes = open_error_boxes(window)
    assert len(boxes) == 1 and boxes[0].text() == "The archive is empty"
    assert "archive" not in window.status.message.text()  # the dialog is its one place, not also the status bar
    window.status.clear_errors()  # what a finished run or an import that worked does
    qtbot.waitUntil(lambda: not open_error_boxes(window), timeout=2000)
    assert window.status.last_error is None


def test_messages_start_with_a_capital(window):
    window.status.show_message("stopping: saving a checkpoint…")
    assert window.status.message.text() == "Stopping: saving a checkpoint…"
    assert not window.status.details_button.isVisibleTo(window)


def test_eta_is_the_jobs_and_says_paused(window):
    progress = {"step": 10, "total_steps": 100, "epoch": 1, "epochs": 5, "eta_s": None}
    window.session.state = "running"
    window.run_state.on_progress("r1", progress)
    assert window.status.eta.text() == "Epoch 1/5 · step 10/100 · ETA …"  # no rate yet
    window.run_state.on_progress("r1", {**progress, "step": 20, "eta_s": 80.0})  # the job's ETA, in every job's words
    assert window.status.eta.text() == "Epoch 1/5 · step 20/100 · about 80 s left"
    assert window.status.progress.value() == 20 and window.status.progress.maximum() == 100
    window.session.state = "paused"
    window.run_state.on_state("paused")
    assert window.status.eta.text() == "Epoch 1/5 · step 20/100 · paused"
    window.run_state.on_progress("r1", {**progress, "step": 20, "eta_s": 80.0})  # a batch in flight when it paused
    assert window.status.eta.text().endswith("paused")
    window.session.state = "idle"
    window.run_state.on_state("idle")
    assert window.status.eta.text() == "" and not window.status.progress.isVisibleTo(window)


def test_eta_is_never_clipped_by_a_long_message(qtbot, window):
    window.resize(1024, 768)
    window.session.state = "running"
    window.run_state.on_progress("r1", {"step": 1, "total_steps": 10_000, "epoch": 1, "epochs": 50})
    window.status.show_message("A very long message about something that happened " * 6)
    qtbot.wait(50)  # the status bar lays out on the next turns of Qt's event loop
    assert window.status.eta.width() >= window.status.eta.sizeHint().width()
    assert window.status.eta.geometry().right() <= window.statusBar().width()
    shown = window.status.message.shown_text()
    assert shown.endswith("…") and len(shown) < len(window.status.message.text())  # the message gives way
    assert window.status.message.toolTip() == window.status.message.text()


def test_skipped_files_are_counted_right_and_listed():
    assert count(1, "file") == "1 file" and count(2, "file") == "2 files"
    report = {"skipped": 7, "skipped_examples": ["a.png: not an image", "b.png: truncated"]}
    assert skipped_details(report) == "7 files skipped:\na.png: not an image\nb.png: truncated\n… and 5 more"
    assert skipped_details({"skipped": 0}) == ""


def test_details_button_shows_the_list(qtbot, window):
    window.status.show_message("dataset pets: 24 images; 1 file skipped", "1 file skipped:\nx.png: truncated")
    assert window.status.message.text().startswith("Dataset pets")
    assert window.status.details_button.isVisibleTo(window) and "x.png" in window.status.details_button.toolTip()
    window.status.details_button.click()
    shown = [b for b in window.findChildren(QMessageBox) if b.isVisible() and "x.png" in b.informativeText()]
    assert shown
    shown[0].close()


def test_a_run_that_ends_is_named_as_the_run_list_names_it(window):
    from studio.core.config import RunConfig
    from studio.core.runs.names import shown_names

    store = window.session.store
    run = store.create_run(RunConfig.from_dict({"data": {"name": "moons"}, "train": {"epochs": 3}}))
    store.set_status(run.id, "finished")
    name = shown_names(store)[run.id]
    assert name == "mlp · moons · 3 epochs"
    window.session.run_ended.emit(run.id, "finished", "")
    assert window.status.message.text() == f"Run “{name}” finished"
    assert run.id not in window.status.message.text()
    window.session.run_ended.emit(run.id, "failed", "it broke")
    assert window.status.message.text() == f"Run “{name}” failed (the message box says why)"


def test_a_long_run_name_is_shortened_by_the_naming_rule(window):
    from studio.core.config import RunConfig

    store = window.session.store
    config = RunConfig.from_dict({"data": {"name": "moons", "n_samples": 500, "noise": 0.3},
                                  "model": {"name": "mlp", "widths": [64, 64, 64], "dropout": 0.1},
                                  "optimizer": {"name": "sgd", "lr": 0.05}, "train": {"epochs": 7, "seed": 3}})
    run = store.create_run(config)
    label = window.session.run_label(run.id)
    assert label.startswith("“mlp ") and label.endswith("”") and "…" in label and len(label) <= 50, label
