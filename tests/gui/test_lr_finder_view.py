"""Issue 36: the learning-rate finder in the window runs the range test on the form's settings, draws the loss
against the rate on a log axis with the suggested rates marked, and one click puts a suggested rate in the form;
a ramp that goes down is refused in one sentence and nothing starts."""

import math

import pytest
from PySide6.QtWidgets import QDoubleSpinBox

from studio.gui.tabs.lr_finder import LrFinderPage


def _tab(window) -> LrFinderPage:
    search = window.pages.tab("Search")
    window.tabs.setCurrentWidget(search)
    assert not window.settings.isVisible()  # the study page: the plots get the width
    page = search.page("lr_finder")
    assert window.settings.isVisible()  # the finder tests the form's settings: the form shows beside it
    return page


def test_the_range_test_is_drawn_and_its_suggestion_goes_in_the_form(qtbot, window):
    session = window.session
    config = session.config.with_overrides(["data.name=moons", "model.widths=32", "optimizer.name=sgd"])
    session.set_config(config)
    tab = _tab(window)
    tab.start_lr.setValue(1e-4)
    tab.end_lr.setValue(100.0)
    tab.steps.setValue(40)
    with qtbot.waitSignal(tab.panel.done, timeout=120_000):
        assert tab.find() is not None
    result = tab.result
    assert result is not None and len(result["lrs"]) == result["steps"] <= 40
    item = tab.plot.getPlotItem()
    assert item.getAxis("bottom").logMode
    raw, smoothed = item.listDataItems()
    assert list(smoothed.xData) == result["lrs"] and list(smoothed.yData) == result["smoothed"]
    steepest = result["suggestion"]["steepest"]
    assert steepest is not None
    assert tab.marks["steepest"].value() == pytest.approx(math.log10(steepest))
    assert tab.use["steepest"].isVisibleTo(tab) and f"{steepest:.2g}" in tab.use["steepest"].text()
    assert "suggested learning rate for sgd" in tab.suggestion.text()

    tab.use["steepest"].click()
    rate = float(f"{steepest:.2g}")
    assert session.config.optimizer.params["lr"] == pytest.approx(rate)
    lr_box = window.settings.forms["optimizer"].findChild(QDoubleSpinBox, "param_lr")
    assert lr_box.value() == pytest.approx(rate)  # the form shows it


def test_a_ramp_that_goes_down_is_refused_in_one_sentence(qtbot, window):
    tab = _tab(window)
    tab.start_lr.setValue(1.0)
    tab.end_lr.setValue(0.1)
    assert tab.find() is None
    assert "the range test goes up" in tab.panel.status.text() and not tab.panel.busy
