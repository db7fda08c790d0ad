"""The Evaluation tab on a real short run: evaluate in the background, see the matrix, table, gallery and
reliability diagram; predict a dropped image; export; a bad input is one clear message."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from PIL import Image
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent

from studio.core.runs.store import RunStore
from studio.gui.tabs.evaluation import EvaluationTab
from tests.gui.conftest import new_session
from tests.unit.eval_run import shared_run


@pytest.fixture
def tab(qtbot):
    home, run_dir = shared_run()  # shared with tests/integration/test_eval_predict_export.py
    shutil.rmtree(run_dir / "evaluations", ignore_errors=True)  # start with nothing evaluated
    session = new_session(RunStore(home))
    widget = EvaluationTab(session)
    qtbot.addWidget(widget)
    widget.resize(1000, 650)
    widget.show()
    errors: list[tuple[str, str]] = []
    session.error.connect(lambda title, message: errors.append((title, message)))
    yield widget, run_dir, errors
    widget.shutdown()
    session.shutdown(wait_s=5)


def _finish(qtbot, widget, timeout=90_000):
    qtbot.waitUntil(lambda: not widget.busy, timeout=timeout)


def test_evaluate_predict_and_export(qtbot, tab, tmp_path):
    widget, run_dir, errors = tab
    assert widget.select_run(run_dir.name)
    assert widget.status.text().startswith("Not evaluated yet")
    assert widget.evaluate()
    assert widget.busy and widget.cancel_button.isEnabled() and not widget.evaluate_button.isEnabled()
    assert widget.job in widget.session.running("evaluation")  # the session follows it
    _finish(qtbot, widget)
    assert not errors and widget.summary is not None, widget.status.text()
    counts = widget.confusion.counts
    assert counts.shape == (10, 10) and counts.sum() == 2000
    assert np.trace(counts) / 2000 == pytest.approx(widget.summary["accuracy"])
    assert widget.per_class.rowCount() == 10 and widget.gallery.count() == 24
    assert not widget.gallery.item(0).icon().isNull()
    assert "ECE" in widget.reliability.plotItem.titleLabel.text
    widget.confusion.normalised.setChecked(True)
    np.testing.assert_allclose(widget.confusion.shown_values().sum(axis=1), 1.0)
    assert len(widget.confusion.texts) == 100

    # a saved evaluation reopens without computing
    widget.split_box.setCurrentIndex(widget.split_box.findData("train"))
    assert widget.summary is None
    widget.split_box.setCurrentIndex(widget.split_box.findData("test"))
    assert widget.summary is not None and widget.summary["split"] == "test"

    # drop a test image on the Predict page
    from studio.core.datasets.bundled import load_fashion_mnist_small

    image = load_fashion_mnist_small().x_test[0, 0].numpy()
    Image.fromarray(image).save(tmp_path / "shoe.png")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(tmp_path / "shoe.png"))])
    drop = QDropEvent(QPointF(5, 5), Qt.DropAction.CopyAction, mime, Qt.MouseButton.NoButton,
                      Qt.KeyboardModifier.NoModifier)
    widget.predict_panel.drop.dropEvent(drop)
    assert widget.busy
    _finish(qtbot, widget)
    table = widget.predict_panel.table
    assert table.rowCount() == 1 and table.item(0, 0).text() == "shoe.png"
    probs = np.load(widget.saved_path().with_suffix(".npz"))["probs"]  # the test split, in order
    predicted, probability = table.item(0, 1).text().rsplit(" ", 1)
    assert predicted.strip() == widget.summary["classes"][int(probs[0].argmax())]
    assert float(probability) == pytest.approx(float(probs[0].max()), abs=1e-3)

    # the curves export in-process (no torch)
    assert widget.export("csv", tmp_path / "c.csv") and (tmp_path / "c.csv").stat().st_size > 100
    assert widget.export("png", tmp_path / "c.png") and Image.open(tmp_path / "c.png").size == (1200, 800)
    assert not errors


@pytest.mark.slow
def test_model_and_tensorboard_exports_run_as_jobs(qtbot, tab, tmp_path):
    widget, run_dir, errors = tab
    widget.select_run(run_dir.name)
    assert widget.export("export", tmp_path / "model.pt2")
    _finish(qtbot, widget)
    assert (tmp_path / "model.pt2").stat().st_size > 10_000 and (tmp_path / "model.pt2.json").exists()
    assert widget.export_status.text().startswith("Wrote") and "MB" in widget.export_status.text()
    assert widget.export("tensorboard", tmp_path / "tb")
    _finish(qtbot, widget)
    assert list((tmp_path / "tb" / run_dir.name).glob("events.out.tfevents.*"))
    assert "tensorboard --logdir" in widget.export_status.text()
    assert not errors


def test_a_bad_input_is_one_clear_message(qtbot, tab, tmp_path):
    widget, run_dir, errors = tab
    widget.select_run(run_dir.name)
    (tmp_path / "notes.png").write_text("not an image")
    assert widget.predict([str(tmp_path / "notes.png")])
    _finish(qtbot, widget)
    assert errors and "notes.png is not a readable image" in errors[-1][1]
    assert len(errors) == 1  # the message once: in the dialog
    # the Predict page says it failed (no "Classifying…" left); the header stays about the evaluation (issue 22)
    panel = widget.predict_panel
    assert "failed" in panel.status.text() and "Classifying" not in panel.status.text()
    assert panel.table.rowCount() == 0 and "notes.png" not in panel.status.text()
    assert not widget.status.text().startswith("Failed") and "prediction" not in widget.status.text()


def test_a_bad_pasted_row_is_said_in_the_pages_words_and_keeps_the_last_prediction(qtbot, tab):
    """Issue 33.8: "Pasted row.csv has no rows to predict" (a file name the person never saw) for a bad pasted row,
    and the prediction shown before was wiped."""
    widget, run_dir, errors = tab
    widget.select_run(run_dir.name)
    panel = widget.predict_panel
    panel.row.setText(",".join(["0"] * 784))  # a good row first: its prediction is what must stay
    panel.row.returnPressed.emit()
    _finish(qtbot, widget)
    assert panel.table.rowCount() == 1 and panel.table.item(0, 0).text() == "pasted row"
    shown = panel.table.item(0, 1).text()
    panel.row.setText("0,0,x7,0")  # a typo: refused on the page, nothing starts
    panel.row.returnPressed.emit()
    assert not widget.busy
    assert panel.status.text().startswith("The pasted row holds 'x7', which is not a number")
    assert panel.table.rowCount() == 1 and panel.table.item(0, 1).text() == shown
    panel.row.setText("1,2,3")  # numbers, but not as many as the model takes: the job says so
    panel.row.returnPressed.emit()
    _finish(qtbot, widget)
    said = panel.status.text()
    assert said.startswith("The pasted row was not classified: it has 3 values; this run's model takes 784"), said
    assert ".csv" not in said and "row 1" not in said
    assert panel.table.rowCount() == 1 and panel.table.item(0, 1).text() == shown  # the last prediction stays
    assert panel.row.text() == "1,2,3" and not errors  # the pasted text stays to fix; no dialog on top
