"""The Data tab and the import controller: samples per class, counts, splits, the augmentation
preview, catalog fetch offline, a question for an ambiguous CSV, and cancel."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QPushButton

from studio.core.datasets import cache
from studio.core.datasets.importers.pipeline import import_path
from studio.core.runs.store import RunStore
from studio.gui.tabs.data import DataPreview
from studio.gui.widgets.data_import import ImportController
from tests.gui.conftest import new_session
from tests.unit import import_fixtures as fx


@pytest.fixture
def session(qtbot):
    s = new_session(RunStore())
    yield s
    s.shutdown(wait_s=5)


def test_preview_shows_counts_samples_splits_and_follows_the_config(qtbot, session, tmp_path):
    import_path(fx.image_folder(tmp_path / "pets", classes=("cat", "dog", "emu", "fox"), per_class=10))
    fx.image_folder(tmp_path / "more" / "a", per_class=3)
    tab = DataPreview(session)
    qtbot.addWidget(tab)
    heights = tab.bar_heights()  # the bundled subset first: 12,000 images, 10 classes
    assert tab.summary.name == "fashion_mnist_small" and len(heights) == 10 and sum(heights) == 12_000
    assert "train 9,000 · validation 1,000 · test 2,000" in tab.info.text()  # bundled: train.val_fraction
    session.set_choice("data", "pets")
    assert tab.bar_heights() == [10, 10, 10, 10] and tab.sample_rows() == 4
    assert "colour 20×24 (3 channels)" in tab.info.text()
    assert "train 28 · validation 8 · test 4" in tab.info.text()
    session.set_param("data", "test_fraction", 0.5)
    assert "test 20" in tab.info.text()


def test_a_text_corpus_shows_its_lines_and_their_lengths_not_an_image_grid(qtbot, session):
    from studio.core.datasets.text.store import bundled_lines

    tab = DataPreview(session)
    qtbot.addWidget(tab)
    tab.show()
    session.set_choice("data", "fortunes")
    lines = bundled_lines()
    assert tab.text_view.isVisible() and not tab.image_scroll.isVisible()
    assert tab.text_view.toPlainText().splitlines() == lines[:len(tab.text_view.toPlainText().splitlines())]
    assert tab.text_view.blockCount() == min(len(lines), 2000)
    heights = tab.bar_heights()  # lines per length in words
    assert sum(heights) == len(lines) and heights[len(lines[0].split())] > 0
    assert not tab.augment_button.isVisible() and tab.counts_plot.plotItem.titleLabel.text == "Lines by length"
    session.set_choice("data", "fashion_mnist_small")  # back to images: grid, class counts, augmentation
    assert tab.image_scroll.isVisible() and not tab.text_view.isVisible() and tab.augment_button.isVisible()
    assert tab.sample_rows() == 10 and sum(tab.bar_heights()) == 12_000
    assert tab.counts_plot.plotItem.titleLabel.text == "Images per class"


def test_augmentation_preview_runs_in_the_background(qtbot, session, tmp_path):
    import_path(fx.image_folder(tmp_path / "pets", per_class=8))
    session.set_choice("data", "pets")
    session.set_param("data", "aug_rotation", 30.0)
    session.set_param("data", "aug_hflip", True)
    tab = DataPreview(session)
    qtbot.addWidget(tab)
    tab.augment_button.click()
    assert tab.preview_job is not None and tab.augment_button.text() == "Cancel"  # one button: it cancels now
    assert session.running("preview") == [tab.preview_job]  # the Session follows the tab's job
    qtbot.waitUntil(lambda: tab.preview_job is None, timeout=120_000)
    assert "aug_rotation" in tab.augment_status.text() and "aug_hflip" in tab.augment_status.text()
    assert not tab.augment_after.pixmap().isNull() and not tab.augment_before.pixmap().isNull()
    assert tab.augment_after.pixmap().width() == tab.augment_before.pixmap().width()


def test_catalog_dataset_not_fetched_offline(qtbot, session, monkeypatch):
    monkeypatch.setenv("STUDIO_OFFLINE", "1")
    session.set_choice("data", "cifar10")
    tab = DataPreview(session)
    qtbot.addWidget(tab)
    assert not tab.fetch_button.isHidden() and not tab.augment_button.isEnabled()
    assert "not on this machine" in tab.info.text()
    errors = []
    session.error.connect(lambda title, message: errors.append(message))
    tab.fetch_button.click()
    qtbot.waitUntil(lambda: bool(errors), timeout=120_000)
    assert "offline" in errors[0] and "studio data import FOLDER" in errors[0]


def test_an_ambiguous_csv_asks_for_the_label_column(qtbot, session, tmp_path):
    path = tmp_path / "shapes.csv"
    path.write_text("p1,p2,p3,p4,kind\n" + "\n".join(f"{i},{i},{i},{i},{'ab'[i % 2]}" for i in range(8)))
    controller = ImportController(session)
    asked = []
    controller.ask = lambda title, question, choices: asked.append(choices) or "kind"
    done = []
    controller.imported.connect(done.append)
    controller.import_path(str(path))
    assert [h.kind for h in session.running()] == ["import"]  # the import is the Session's job
    qtbot.waitUntil(lambda: bool(done), timeout=120_000)
    assert asked == [["p1", "p2", "p3", "p4", "kind"]]
    assert done[0]["classes"] == ["a", "b"] and session.config.data.name == "shapes"


def test_cancel_from_the_progress_dialog_leaves_nothing(qtbot, session, monkeypatch):
    from studio.engine.tasks.data_import import ImportJob

    controller = ImportController(session)
    cancelled = []
    controller.cancelled.connect(lambda: cancelled.append(True))
    # the engine makes a slow import of this request (tests/unit/slow_import.py)
    monkeypatch.setattr(session.engine, "job", lambda task, request: ImportJob("tests.unit.slow_import:run"))
    controller.import_path("a lot")
    qtbot.waitUntil(lambda: "decoding" in controller.dialog.labelText(), timeout=120_000)
    controller.dialog.findChild(QPushButton).click()  # the dialog's Cancel button
    qtbot.waitUntil(lambda: not controller.busy, timeout=60_000)
    assert cancelled == [True] and controller.dialog is None
    assert cache.entries() == [] and list(cache.root().iterdir()) == []
