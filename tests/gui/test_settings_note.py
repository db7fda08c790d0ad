"""Issue 33.5: the settings panel's yellow note comes and goes without moving the fields under the pointer. Scrolled
down, the scroll follows the note's change in height; with the note in view and the pointer over the panel, a note
that goes keeps its place (saying the settings fit now) until the pointer leaves. (The real-window test with real
input is tests/gui/test_real_window_first_hour.py.)"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint
from PySide6.QtGui import QCursor
from PySide6.QtWidgets import QApplication, QWidget

from studio.gui.panels.settings_panels import FITS_NOW


def settle() -> None:
    for _ in range(3):
        QApplication.processEvents()


def where(panel, widget: QWidget) -> int:
    return widget.mapTo(panel, QPoint(0, 0)).y()


def test_scrolled_down_the_fields_stay_put_as_the_note_comes_and_goes(qtbot, window):
    window.resize(1024, 768)
    panel = window.settings
    batch, seed = panel.train_form.widgets["batch_size"], panel.train_form.widgets["seed"]
    panel.ensureWidgetVisible(seed, 20, 60)
    settle()
    QCursor.setPos(panel.mapToGlobal(QPoint(40, 40)))
    start, scroll = where(panel, seed), panel.verticalScrollBar().value()
    assert scroll > 0 and not panel.warnings.isVisible()
    batch.setValue(20_000)  # one step per epoch: the note appears, far above the view
    settle()
    assert panel.warnings.isVisible() and where(panel, seed) == start
    assert panel.verticalScrollBar().value() == scroll + panel.warnings.height() + panel.widget().layout().spacing()
    batch.setValue(64)  # and goes
    settle()
    assert not panel.warnings.isVisible() and where(panel, seed) == start
    assert panel.verticalScrollBar().value() == scroll


def test_a_note_in_view_keeps_its_place_until_the_pointer_leaves(qtbot, window):
    window.resize(1024, 768)
    panel = window.settings
    batch = panel.train_form.widgets["batch_size"]
    batch.setValue(20_000)
    panel.verticalScrollBar().setValue(0)
    settle()
    model = panel.forms["model"]  # a field near the top, in view with the note
    QCursor.setPos(model.mapToGlobal(QPoint(20, 10)))
    start, height = where(panel, model), panel.warnings.height()
    assert panel.warnings.isVisible() and "⚠" in panel.warnings.text()
    batch.setValue(64)
    settle()
    assert panel.warnings.isVisible() and panel.warnings.text() == FITS_NOW  # its place is kept …
    assert panel.warnings.height() == height and where(panel, model) == start
    batch.setValue(20_000)  # a warning again takes the place back
    settle()
    assert "⚠" in panel.warnings.text() and where(panel, model) == start
    batch.setValue(64)
    settle()
    QCursor.setPos(window.mapToGlobal(QPoint(window.width() - 20, window.height() // 2)))
    QApplication.sendEvent(panel, QEvent(QEvent.Type.Leave))  # … until the pointer leaves the panel
    settle()
    assert not panel.warnings.isVisible() and where(panel, model) < start


def test_at_the_top_with_the_pointer_elsewhere_the_note_simply_goes(qtbot, window):
    panel = window.settings
    batch = panel.train_form.widgets["batch_size"]
    batch.setValue(20_000)
    panel.verticalScrollBar().setValue(0)
    QCursor.setPos(window.mapToGlobal(QPoint(window.width() - 20, window.height() // 2)))
    settle()
    batch.setValue(64)  # e.g. a config opened from the menu
    settle()
    assert not panel.warnings.isVisible() and panel.verticalScrollBar().value() == 0
