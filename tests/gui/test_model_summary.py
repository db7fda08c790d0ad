from studio.gui.app.main_window import MainWindow
from tests.gui.conftest import new_session


def test_summary_button_shows_layers_params_and_flops(qtbot):
    session = new_session()
    window = MainWindow(session, probe_backend=False)
    qtbot.addWidget(window)
    session.set_choice("model", "lenet5")
    dialog = window.settings.show_model_summary()
    assert session.running("summary") == [dialog.job]  # the Session follows the dialog's job
    qtbot.waitUntil(lambda: dialog.summary is not None or bool(dialog.error), timeout=60_000)
    assert dialog.summary["total_params"] == 61_706
    assert dialog.table.rowCount() == len(dialog.summary["layers"]) > 5
    assert "61,706 parameters" in dialog.heading.text() and "MFLOPs" in dialog.heading.text()
    # the memory view: computed beside measured for parameters, gradients, Adam's state, activations, the peak
    table = dialog.memory_table
    assert table.rowCount() == 5 and table.item(2, 0).text() == "optimizer state (adam)"
    assert table.item(0, 1).text() == table.item(0, 2).text() == f"{61_706 * 4 / 2**10:,.2f} KiB"
    assert table.item(2, 2).text() == f"{2 * 61_706 * 4 / 2**10:,.2f} KiB"  # Adam: two moments
    assert "micro-batch 128 (global batch 128 × 1 × 1 = 128)" in dialog.memory_heading.text()
    dialog.close()
    session.shutdown(wait_s=1)


def test_summary_of_an_impossible_model_says_why(qtbot):
    session = new_session()
    window = MainWindow(session, probe_backend=False)
    qtbot.addWidget(window)
    session.set_choice("data", "moons")
    session.set_choice("model", "cnn")
    dialog = window.settings.show_model_summary()
    qtbot.waitUntil(lambda: dialog.summary is not None or bool(dialog.error), timeout=60_000)
    assert dialog.summary is None and "image data" in dialog.error
    dialog.close()
    session.shutdown(wait_s=1)


def test_entry_formula_and_paper_are_in_the_form_tooltips(qtbot):
    session = new_session()
    window = MainWindow(session, probe_backend=False)
    qtbot.addWidget(window)
    form = window.settings.forms["optimizer"]
    form.combo.setCurrentText("momentum_lr_inside")
    from studio.core.optim import OPTIMIZERS

    info = OPTIMIZERS.get("momentum_lr_inside").info
    assert info and info in form.about.toolTip() and info in form.combo.toolTip()
    session.shutdown(wait_s=1)

