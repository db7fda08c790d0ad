"""The BERT models' settings come from the registry: picking bert_classifier shows its init_from, frozen_epochs
and base_lr_factor fields, and an edited init_from lands in the session's config."""

from __future__ import annotations

from PySide6.QtWidgets import QLineEdit, QSpinBox


def test_bert_classifier_form_is_generated(window):
    session = window.session
    window.settings.forms["data"].combo.setCurrentText("fortune_sources")  # as a person picks them
    form = window.settings.forms["model"]
    form.combo.setCurrentText("bert_classifier")
    assert session.config.model.name == "bert_classifier" and session.config.data.name == "fortune_sources"
    init = form.findChild(QLineEdit, "param_init_from")
    assert form.findChild(QSpinBox, "param_frozen_epochs") is not None
    assert form.findChild(QSpinBox, "param_layers") is not None
    init.setText("20261124-000000-abcd")
    init.editingFinished.emit()
    assert session.config.model.params["init_from"] == "20261124-000000-abcd"
    vocab = window.settings.forms["data"].findChild(QLineEdit, "param_vocab_from")
    assert vocab is not None and vocab.text() == ""


def test_dropping_a_labelled_csv_imports_labelled_text(qtbot, window, tmp_path):
    from tests.gui.test_drop_import import drop

    path = tmp_path / "topics.csv"
    path.write_text("text,label\n" + "".join(f'"line {i} about {"chips" if i % 2 else "votes"}",'
                                             f'{"tech" if i % 2 else "politics"}\n' for i in range(12)))
    assert drop(window, path)
    qtbot.waitUntil(lambda: not window.shell.importer.busy, timeout=60_000)
    assert window.session.config.data.name == "topics"
    assert "Labelled text topics: 12 lines in 2 classes for bert_classifier" in window.status.message.text()
    window.navigation.page_chosen.emit(window.tabs.indexOf(window.pages.tab("Data")))
    tab = window.pages.tab("Data")
    qtbot.waitUntil(lambda: "2 classes (politics 6, tech 6)" in tab.info.text(), timeout=10_000)
    assert tab.text_view.toPlainText().splitlines()[0] == "[politics] line 0 about votes"
    assert tab.bar_heights() == [6, 6]
