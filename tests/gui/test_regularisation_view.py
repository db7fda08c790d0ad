"""The regularisation view as a class sees it: plain axis numbers in presentation mode, a first frame that shows
something (frames fed directly: no computation)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest

from studio.gui.demos import style
from studio.gui.demos.lab import TeachingLab

ALL = ("none", "dropout", "weight_decay", "augmentation")


def frame(epoch: int, names=ALL) -> dict:
    row = {"train_loss": 2.3 * np.exp(-epoch / 5), "val_loss": 0.6 + 1.7 * np.exp(-epoch / 5),
           "train_acc": 1 - 0.9 * np.exp(-epoch / 5), "val_acc": 0.8 - 0.7 * np.exp(-epoch / 5)}
    return {"epoch": epoch, "rows": {n: dict(row) for n in names}}


@pytest.fixture
def lab(qtbot, monkeypatch):
    from studio.core.demos import recordings

    monkeypatch.setattr(recordings, "shipped", lambda _demo: None)  # these tests hand the view live frames
    tab = TeachingLab(None)
    tab.resize(1280, 800)
    qtbot.addWidget(tab)
    tab.show()
    return tab


def tick_texts(plot: pg.PlotItem, side: str) -> list[str]:
    axis = plot.getAxis(side)
    return axis.tickStrings([10.0, 20.0], axis.autoSIPrefixScale * axis.scale, 10.0)


def test_presentation_mode_after_selecting_the_demo_keeps_plain_axis_numbers(qtbot, lab):
    # selected, a run of two variants shown (the two spare panels empty), then F11, then a run of all four:
    # the spare panels once kept pyqtgraph's ×1000 scale from their empty range ("loss 500–2000, epoch 10000")
    view = lab.open("regularisation")
    for epoch in range(11):
        view._frame(frame(epoch, ("none", "augmentation")))
    qtbot.wait(20)  # laid out and painted, as on screen
    lab.set_presentation(True)
    view.clear_data()
    view.player.reset()
    for epoch in range(31):
        view._frame(frame(epoch))
    view.player.seek(30)
    for panel in view.panels:
        assert panel.plot.isVisible()
        for side in ("bottom", "left"):
            assert panel.plot.getAxis(side).autoSIPrefixScale == 1.0, (panel.name, side)
            assert tick_texts(panel.plot, side) == ["10", "20"], (panel.name, side)


def test_style_plot_never_leaves_an_si_scale_on_an_empty_plot(qtbot):
    widget = pg.PlotWidget()
    qtbot.addWidget(widget)
    plot = widget.getPlotItem()
    plot.setRange(xRange=(-0.5, 0.5), yRange=(-0.5, 0.5), padding=0)  # an empty plot's range
    style.style_plot(plot, "t", False, "epoch", "loss")
    style.style_plot(plot, "t", True, "epoch", "loss")  # restyled with its labels showing: presentation mode
    plot.setRange(xRange=(0, 30), yRange=(0, 2.5))
    assert tick_texts(plot, "bottom") == ["10", "20"] and tick_texts(plot, "left") == ["10", "20"]


def test_a_run_of_fewer_variants_hides_the_spare_panels(qtbot, lab):
    view = lab.open("regularisation")
    for epoch in range(3):
        view._frame(frame(epoch, ("none", "dropout")))
    assert [p.plot.isVisible() for p in view.panels] == [True, True, False, False]


def test_the_first_frame_shows_the_epoch_0_points_on_the_whole_runs_epoch_axis(qtbot, lab):
    view = lab.open("regularisation")
    view.set_params({"epochs": 30})
    view.clear_data()  # as compute() does: the run's 30 epochs are known before its first frame
    view._frame(frame(0))
    assert view.player.position == 0
    for panel in view.panels:
        markers = [item for item in panel.plot.listDataItems()
                   if item.opts["symbol"] is not None and item.getData()[0] is not None and len(item.getData()[0])]
        assert len(markers) == 2  # epoch 0's train and validation loss, as points
        assert sorted(float(m.getData()[1][0]) for m in markers) == pytest.approx([0.6 + 1.7, 2.3])
        (x_lo, x_hi), (y_lo, y_hi) = panel.plot.viewRange()
        assert x_lo <= 0 and x_hi >= 30  # the epoch axis is already the run's
        assert y_lo <= 0 and y_hi >= 2.3
    view._frame(frame(1))
    view.player.seek(1)
    markers = [item for item in view.panels[0].plot.listDataItems() if item.opts["symbol"] is not None]
    assert all(float(m.getData()[0][0]) == 1.0 for m in markers)  # the markers follow the newest epoch
