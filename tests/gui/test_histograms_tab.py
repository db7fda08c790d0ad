"""The Histograms tab (issue 22 point 8): a finished run's layers are listed and their weight and gradient
histograms are drawn as step × value heat maps; without histograms the tab shows a hint, not empty axes."""

from __future__ import annotations

import numpy as np
from PySide6.QtGui import QImage

from studio.core.runs import histograms
from studio.core.runs.store import RunStore
from studio.gui.tabs import find
from studio.gui.tabs.histograms import HistogramsTab
from tests.gui.conftest import new_session
from tests.unit.landscape_runs import train_run

TINY = ["data.name=fashion_mnist_small", "model.widths=16", "train.epochs=1", "train.batch_size=500",
        "train.histogram_every=4", "train.trajectory_snapshots=false"]


def colours(widget) -> int:
    """How many distinct colours the widget's rendered plot area holds."""
    image = widget.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
    arr = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.bytesPerLine() // 4, 4)
    return len(np.unique(arr[..., :3].reshape(-1, 3), axis=0))


def test_the_tab_is_registered_without_torch():
    assert find("histograms").title == "Histograms" and find("Histograms").load() is HistogramsTab


def test_a_finished_run_shows_its_layers_and_draws_heat_maps(qtbot, tmp_path):
    run_dir = train_run(tmp_path, TINY)  # 18 steps: histograms before steps 0, 4, 8, 12, 16
    session = new_session(RunStore(tmp_path))
    try:
        tab = HistogramsTab(session)
        qtbot.addWidget(tab)
        tab.resize(1000, 700)
        tab.show()
        assert tab.run_box.count() == 1 and tab.run_box.currentData() == run_dir.name
        layers = [tab.layer_box.itemText(i) for i in range(tab.layer_box.count())]
        assert layers == histograms.layers(histograms.read(run_dir)) and len(layers) == 4  # 2 weights, 2 biases
        assert tab.pages.currentIndex() == 1
        for view in (tab.weights, tab.grads):
            assert view.shown.shape == (60, 5)  # value bins × recorded steps
            assert np.allclose(view.shown.sum(axis=0), 1.0)
        assert "from 0 to 16" in tab.weights.plot.getPlotItem().titleLabel.text
        qtbot.wait(50)  # the heat maps paint on the next turns of Qt's event loop
        assert colours(tab.weights.plot) > 40 and colours(tab.grads.plot) > 40  # a heat map, not blank axes
        tab.layer_box.setCurrentIndex(3)
        assert tab.weights.shown.shape == (60, 5) and layers[3] in tab.weights.plot.getPlotItem().titleLabel.text

        # while a run trains the tab re-reads its file as it grows (here: a record appended by hand)
        session.jobs[run_dir.name] = object()
        tab._run_changed()
        assert tab.timer.isActive()
        last = [r for r in histograms.read(run_dir) if r["name"] == layers[3]][-2:]
        histograms.append(run_dir, [{**r, "step": 20} for r in last])
        tab._poll()
        assert tab.weights.shown.shape == (60, 6) and tab.grads.shown.shape == (60, 6)
        del session.jobs[run_dir.name]
        tab._poll()
        assert not tab.timer.isActive()
    finally:
        session.shutdown(wait_s=10)


def test_without_histograms_the_tab_shows_a_hint(qtbot, tmp_path):
    session = new_session(RunStore(tmp_path))
    try:
        tab = HistogramsTab(session)
        qtbot.addWidget(tab)
        assert tab.run_box.count() == 0
        assert tab.pages.currentWidget() is tab.hint and "histogram_every" in tab.hint.text()
    finally:
        session.shutdown(wait_s=10)


def shown_ticks(view) -> tuple[list[str], tuple[float, float], str]:
    """The x axis's labelled ticks as drawn at its width, its range and its label's text."""
    from studio.gui.tabs.histograms import HistogramView

    assert isinstance(view, HistogramView)
    axis = view.plot.getAxis("bottom")
    lo, hi = view.plot.getPlotItem().viewRange()[0]
    strings = []
    for spacing, values in axis.tickValues(lo, hi, axis.width()):
        strings += axis.tickStrings(values, axis.autoSIPrefixScale, spacing)
    return strings, (lo, hi), axis.labelString()


def _series(steps: list[int]) -> histograms.HistogramSeries:
    return histograms.HistogramSeries("fc.weight", "weight", list(steps), [-0.1] * len(steps), [0.1] * len(steps),
                                      [[1, 3, 5, 3, 1]] * len(steps))


def test_a_short_runs_histograms_have_a_step_axis_of_whole_numbers(qtbot):
    """Issue 33.6: a 40-step run's histogram read "step (×0.001)" with ticks −400…400 for its one record at step 0."""
    from studio.gui.tabs.histograms import HistogramView

    view = HistogramView("weights")
    qtbot.addWidget(view)
    view.resize(600, 300)
    view.show()
    qtbot.waitExposed(view)
    for steps in ([0], [40], [0, 10, 20, 30, 40], [0, 1, 2]):
        view.draw(_series(steps), "fc.weight")
        qtbot.wait(10)
        strings, (lo, hi), label = shown_ticks(view)
        assert strings and all(s.lstrip("-").isdigit() for s in strings), (steps, strings)
        assert lo >= min(steps) - 5.01 and hi <= max(steps) + 5.01, (steps, lo, hi)  # the data's own range
        assert {int(s) for s in strings} <= set(range(int(lo) - 1, int(hi) + 2))
        assert "×" not in label and "x0.001" not in label, label


def test_the_title_says_once_for_one_record_and_a_range_for_more(qtbot):
    """Issue 33: one record read "recorded at 1 steps, 0–0"."""
    from studio.gui.tabs.histograms import HistogramView

    view = HistogramView("weights")
    qtbot.addWidget(view)
    view.draw(_series([0]), "fc.weight")
    assert view.plot.getPlotItem().titleLabel.text == "weights of fc.weight · recorded once, at step 0"
    view.draw(_series([0, 100, 1100]), "fc.weight")
    assert view.plot.getPlotItem().titleLabel.text == "weights of fc.weight · recorded at 3 steps, from 0 to 1,100"
