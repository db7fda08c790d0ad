"""Issue 22: the wheel over an unfocused combo box / spin box / slider leaves its value alone and goes on to the
panel around it; a focused field still takes the wheel; every field of the window, its tabs, demos and dialogs is
guarded. Fields show the decimals their value needs."""

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication, QComboBox, QDoubleSpinBox, QScrollBar, QSlider, QSpinBox

from studio.core.config import train_params
from studio.core.contracts.registry import Param
from studio.gui.widgets import wheel_guard
from studio.gui.widgets.forms import param_widget


def wheel(widget, notches: int = -1) -> QWheelEvent:
    """Send one wheel event (down by default) to ``widget``; returns it (accepted or not)."""
    event = QWheelEvent(QPointF(5, 5), QPointF(widget.mapToGlobal(QPoint(5, 5))), QPoint(0, 0),
                        QPoint(0, 120 * notches), Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                        Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(widget, event)
    return event


def fields():
    combo = QComboBox()
    combo.addItems(["relu", "tanh", "sigmoid"])
    spin, double, slider = QSpinBox(), QDoubleSpinBox(), QSlider(Qt.Orientation.Horizontal)
    spin.setRange(0, 100)
    spin.setValue(50)
    double.setRange(0, 100)
    double.setValue(50)
    slider.setRange(0, 100)
    slider.setValue(50)
    return combo, spin, double, slider


def value(w):
    return w.currentIndex() if isinstance(w, QComboBox) else w.value()


def test_unfocused_fields_ignore_the_wheel_and_pass_it_on(qtbot):
    for w in map(wheel_guard.guard, fields()):
        qtbot.addWidget(w)
        w.show()
        before = value(w)
        event = wheel(w)
        assert value(w) == before, type(w).__name__  # the value did not change
        assert not event.isAccepted()  # ignored: QApplication offers it to the parent (the scroll area)
        assert w.focusPolicy() == Qt.FocusPolicy.StrongFocus  # and the wheel does not give the field focus


def test_a_focused_field_still_takes_the_wheel(qtbot):
    for w in map(wheel_guard.guard, fields()):
        qtbot.addWidget(w)
        with qtbot.waitExposed(w):
            w.show()
        w.activateWindow()
        w.setFocus()
        qtbot.waitUntil(w.hasFocus)
        before = value(w)
        wheel(w, notches=-1 if not isinstance(w, QComboBox) else -1)
        assert value(w) != before, type(w).__name__


def test_scroll_bars_are_not_guarded(qtbot):
    bar = wheel_guard.guard(QScrollBar(Qt.Orientation.Vertical))
    qtbot.addWidget(bar)
    bar.setRange(0, 100)
    bar.show()
    wheel(bar)
    assert bar.value() > 0


def test_an_unguarded_field_still_takes_the_wheel(qtbot):
    """The control for the tests above: without the guard the wheel changes the value (Qt's default)."""
    combo = fields()[0]
    qtbot.addWidget(combo)
    combo.show()
    wheel(combo)
    assert combo.currentIndex() == 1 and not wheel_guard.is_guarded(combo)


def test_every_field_of_the_window_its_tabs_demos_and_dialogs_is_guarded(qtbot, tmp_path):
    """Builders guard what they build; this fails on a field a new tab, demo, form or dialog forgot."""
    from studio.core.runs.store import RunStore
    from studio.gui.app.cluster_dialog import ClusterDialog
    from studio.gui.app.main_window import MainWindow
    from studio.gui.demos.lab import VIEWS
    from tests.gui.conftest import new_session

    session = new_session(RunStore(tmp_path))
    try:
        window = MainWindow(session, probe_backend=False)
        qtbot.addWidget(window)
        _ = window.curves_pane.curves
        for i in range(window.tabs.count()):
            window.pages.built_tab(i)
        lab = window.pages.tab("teaching_lab")
        for name in VIEWS:
            lab.open(name)
        dialog = ClusterDialog(session, window)
        found = wheel_guard.fields_under(window) + wheel_guard.fields_under(dialog)
        assert len(found) > 40  # the settings forms, every tab and every demo
        unguarded = [f"{type(w).__name__} {w.objectName()!r} in {type(w.parentWidget()).__name__}"
                     for w in found if not wheel_guard.is_guarded(w)]
        assert unguarded == []
    finally:
        session.shutdown(wait_s=10)


def test_fields_show_the_decimals_their_values_need(qtbot):
    params = {p.name: p for p in train_params()}
    assert param_widget(params["checkpoint_minutes"], 10.0, print).text() == "10"  # not "10.0000"
    assert param_widget(params["val_fraction"], 0.1, print).text() == "0.1"
    assert param_widget(params["epochs"], 10, print).text() == "10"
    degrees = Param("aug_rotation", "float", 0.0, low=0.0, high=180.0)
    w = param_widget(degrees, 0.0, print)
    assert w.text() == "0"  # not "0.0000"
    w.setValue(12.5)
    assert w.text() == "12.5"
    assert param_widget(Param("beta2", "float", 0.999, low=0.0, high=0.99999), 0.99999, print).text() == "0.99999"
    w.lineEdit().setText("7.123456")  # typed with more decimals than the old four: kept
    w.interpretText()
    assert w.value() == 7.123456 and w.text() == "7.123456"
