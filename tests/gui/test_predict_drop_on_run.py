"""Images dropped on a finished run's row in the run list are classified with that run (issue 14's "drop an image
on a finished run"): the Evaluation tab opens on Predict with the result; dropped between rows they open as
anywhere else in the window."""

from __future__ import annotations

from PIL import Image
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent

from studio.core.runs.store import RunStore
from studio.gui.app import commands
from studio.gui.app.main_window import MainWindow
from tests.gui.conftest import new_session
from tests.unit.eval_run import shared_run


def drop_at(tree, point, paths) -> None:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    tree.dropEvent(QDropEvent(QPointF(point), Qt.DropAction.CopyAction, mime, Qt.MouseButton.NoButton,
                              Qt.KeyboardModifier.NoModifier))


def test_images_dropped_on_a_run_row_are_classified_with_that_run(qtbot, tmp_path, monkeypatch):
    home, run_dir = shared_run()
    session = new_session(RunStore(home))
    win = MainWindow(session, probe_backend=False)
    win.shell.confirm_close = lambda: True
    qtbot.addWidget(win)
    win.show()
    errors: list[tuple[str, str]] = []
    session.error.connect(lambda title, message: errors.append((title, message)))
    opened: list[str] = []
    monkeypatch.setattr(commands, "open_path", lambda _shell, path: opened.append(path) or "")
    try:
        from studio.core.datasets.bundled import load_fashion_mnist_small

        test = load_fashion_mnist_small()
        for i in range(2):
            Image.fromarray(test.x_test[i, 0].numpy()).save(tmp_path / f"item{i}.png")
        images = [tmp_path / "item0.png", tmp_path / "item1.png"]
        tree = win.run_list.tree
        assert tree.topLevelItemCount() == 1
        row = tree.visualItemRect(tree.topLevelItem(0))

        drop_at(tree, QPointF(row.center()), images)
        evaluation = win.pages.tab("Evaluation")
        assert win.tabs.currentWidget() is evaluation
        assert evaluation.run_box.currentData() == run_dir.name
        assert evaluation.pages.currentWidget() is evaluation.predict_panel
        qtbot.waitUntil(lambda: not evaluation.busy, timeout=90_000)
        table = evaluation.predict_panel.table
        assert not errors and table.rowCount() == 2
        assert [table.item(r, 0).text() for r in range(2)] == ["item0.png", "item1.png"]
        top = [table.item(r, 1).text().rsplit(" ", 1) for r in range(2)]
        assert all(name.strip() in test.classes and 0 < float(p) <= 1 for name, p in top)
        assert opened == []

        # below the last row: no run there, so the files open as a drop on the window would
        drop_at(tree, QPointF(row.center().x(), row.bottom() + 3 * row.height()), images[:1])
        assert opened == [str(images[0])]
    finally:
        session.shutdown(wait_s=10)
