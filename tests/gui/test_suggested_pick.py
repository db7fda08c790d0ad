"""Picking a next-word model in the window sets its suggested train settings (issue 33.7): the fields show them, a
one-line note says what was set and why and goes at the next edit; picking a classifier again puts back the shared
defaults the suggestion had changed."""

from __future__ import annotations

from studio.core.config import RunConfig
from studio.core.config.suggested import suggestion


def test_picking_lstm_lm_sets_and_says_its_settings_and_mlp_undoes_them(qtbot, window):
    panel = window.settings
    panel.forms["data"].combo.setCurrentText("fortunes")
    panel.forms["model"].combo.setCurrentText("lstm_lm")
    wanted = suggestion("lstm_lm").settings
    batch, epochs = panel.train_form.widgets["batch_size"], panel.train_form.widgets["epochs"]
    assert batch.value() == wanted["train.batch_size"] and epochs.value() == wanted["train.epochs"]
    assert panel.forms["schedule"].combo.currentText() == wanted["schedule.name"]
    config = window.session.config
    assert config.optimizer.params["lr"] == wanted["optimizer.lr"] and config.train.batch_size == 32
    note = panel.suggested_note
    assert note.isVisibleTo(panel) and "lstm_lm" in note.text() and "batch size 32" in note.text()

    epochs.setValue(3)  # a person's edit: the note spoke of the values the pick set
    assert not note.isVisibleTo(panel) and window.session.config.train.epochs == 3

    panel.forms["model"].combo.setCurrentText("mlp")
    shared = RunConfig()
    assert batch.value() == shared.train.batch_size and epochs.value() == 3  # the edit is kept
    assert panel.forms["schedule"].combo.currentText() == shared.schedule.name
    assert note.isVisibleTo(panel) and note.text().startswith("Back to the shared defaults")


def test_a_model_that_suggests_nothing_changes_no_other_field(qtbot, window):
    panel = window.settings
    before = window.session.config.to_dict()
    panel.forms["model"].combo.setCurrentText("cnn")
    after = window.session.config.to_dict()
    assert after["model"]["name"] == "cnn"
    assert {k: v for k, v in after.items() if k != "model"} == {k: v for k, v in before.items() if k != "model"}
    assert not panel.suggested_note.isVisibleTo(panel)


def test_a_window_that_reopens_on_a_next_word_model_has_its_suggested_settings(qtbot, window):
    """[train] is not remembered between sessions: a window that restores gpt_lm sets its suggestion again (else
    it would train it with the shared defaults, the untrained result)."""
    from studio.core.runs.store import RunStore
    from studio.gui.app.main_window import MainWindow
    from tests.gui.conftest import new_session

    window.settings.forms["data"].combo.setCurrentText("fortunes")
    window.settings.forms["model"].combo.setCurrentText("gpt_lm")
    window.shell.prefs.save_choices(window.session.config)
    session = new_session(RunStore())
    again = MainWindow(session, probe_backend=False)
    again.shell.confirm_close = lambda: True
    qtbot.addWidget(again)
    try:
        config = session.config
        assert config.model.name == "gpt_lm"
        assert config.train.batch_size == suggestion("gpt_lm").settings["train.batch_size"]
        assert again.settings.train_form.widgets["batch_size"].value() == config.train.batch_size
    finally:
        session.shutdown(wait_s=5)


def test_picking_resnet18_caps_the_epochs_and_the_note_says_where(qtbot, window):
    """resnet18 at the shared defaults takes about 45 minutes on 2 cores: its suggestion caps each epoch at a few
    steps (train.epoch_steps, an Advanced setting), and the note names where that field is."""
    panel = window.settings
    panel.forms["model"].combo.setCurrentText("resnet18")
    config = window.session.config
    assert (config.train.epochs, config.train.batch_size, config.train.epoch_steps) == (2, 32, 30)
    assert panel.advanced_form.widgets["epoch_steps"].value() == 30
    note = panel.suggested_note.text()
    assert "epoch steps 30" in note and "Advanced settings" in note
    panel.forms["model"].combo.setCurrentText("mlp")
    assert window.session.config.train.epoch_steps == 0  # back to every batch


def test_the_advanced_settings_fit_the_panel_without_a_sideways_scroll(qtbot, window):
    """At 1024×768 with Advanced settings open, no field is wider than the panel (a spin box sizes itself to its
    largest value: train.epoch_steps at 100,000,000 once made the panel scroll sideways)."""
    window.resize(1024, 768)
    window.settings.advanced_button.setChecked(True)
    window.settings.forms["model"].combo.setCurrentText("resnet18")
    qtbot.waitUntil(lambda: window.settings.widget().width() > 0)
    bar = window.settings.horizontalScrollBar()
    qtbot.waitUntil(lambda: window.settings.widget().minimumSizeHint().width() <= window.settings.viewport().width())
    assert not bar.isVisible() or bar.maximum() == 0
