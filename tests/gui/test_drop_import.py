"""Dropping a folder on the main window (a real QDropEvent with mime URLs) imports it in the
background, selects the new dataset, and it trains for one epoch."""

from __future__ import annotations

from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication

from studio.core.datasets import DATASETS
from studio.gui.app.main_window import MainWindow
from tests.unit import import_fixtures as fx


def drop(win: MainWindow, path) -> bool:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    pos = QPointF(win.width() / 2, win.height() / 2)
    enter = QDragEnterEvent(pos.toPoint(), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(win, enter)
    event = QDropEvent(pos, Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                       Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(win, event)
    return enter.isAccepted()


def test_drop_a_folder_then_train_one_epoch(qtbot, window, tmp_path):
    root = fx.image_folder(tmp_path / "dropped_pets", per_class=12)
    fx.corrupt_files(root / "cat")
    assert drop(window, root)
    importer = window.shell.importer
    qtbot.waitUntil(lambda: not importer.busy, timeout=90_000)
    session = window.session
    assert session.config.data.name == "dropped_pets"
    assert "dropped_pets" in DATASETS
    combo = window.settings.forms["data"].combo
    assert combo.currentData() == "dropped_pets"
    assert "2 files skipped" in window.status.message.text()
    assert window.status.details_button.isVisibleTo(window)  # which files, and why: behind Details…
    assert window.status.details.count("\n") == 2 and "zz_truncated.png" in window.status.details

    tab = window.pages.tab("Data")
    assert tab.bar_heights() == [12, 12, 12]
    # 70/20/10 per class of 12: test round(1.2) = 1, validation round(11 · 0.2/0.9) = 2, train 9
    assert "train 27 · validation 6 · test 3" in tab.info.text()
    assert tab.sample_rows() == 3

    session.set_param("train", "epochs", 1)
    session.set_param("train", "batch_size", 16)
    ended = []
    session.run_ended.connect(lambda run_id, status, message: ended.append(status))
    window.train_action.trigger()
    qtbot.waitUntil(lambda: bool(ended), timeout=120_000)
    assert ended == ["finished"], window.status.last_error
    run = session.store.list()[0]
    assert 'name = "dropped_pets"' in run.config
    assert run.summary.get("epochs") == 1 and run.summary.get("test_acc") is not None


def test_dropping_something_bad_shows_the_message(qtbot, window, tmp_path):
    (tmp_path / "empty").mkdir()
    drop(window, tmp_path / "empty")
    qtbot.waitUntil(lambda: not window.shell.importer.busy, timeout=60_000)
    assert window.status.last_error is not None
    title, message = window.status.last_error
    assert title == "Import failed" and "is empty" in message
    assert window.session.config.data.name == "fashion_mnist_small"
