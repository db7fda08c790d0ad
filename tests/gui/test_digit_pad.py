"""Draw a digit on the Predict page: the pad is offered for a run trained on 28×28 grey images only; strokes drawn
with the mouse become a 28×28 picture prepared as MNIST's digits are (fitted into 20×20, centred by mass), which is
classified when the stroke ends; Clear and the right button erase."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt

from studio.core.config import RunConfig
from studio.core.runs.store import RunStore
from studio.gui.tabs.evaluation import EvaluationTab, takes_28x28_grey
from studio.gui.widgets.digit_pad import DigitPad, centred
from tests.gui.conftest import new_session
from tests.unit.eval_run import shared_run


def draw(qtbot, pad: DigitPad, points: list[tuple[int, int]], button=Qt.MouseButton.LeftButton) -> None:
    """A stroke through ``points`` (widget pixels)."""
    qtbot.mousePress(pad, button, pos=QPoint(*points[0]))
    for x, y in points[1:]:
        qtbot.mouseMove(pad, QPoint(x, y))
    qtbot.mouseRelease(pad, button, pos=QPoint(*points[-1]))


def test_a_stroke_becomes_a_centred_digit(qtbot):
    pad = DigitPad()
    qtbot.addWidget(pad)
    pad.resize(280, 280)
    pad.show()
    qtbot.waitExposed(pad)
    with qtbot.waitSignal(pad.drawn):
        draw(qtbot, pad, [(40, 40 + 10 * i) for i in range(12)])  # a short vertical line, top left
    assert not pad.is_empty() and pad.ink[:, 8:].sum() == 0 and pad.ink[5:14, 3:6].min() > 0.5  # 10 px a pixel
    picture = pad.picture()
    rows, cols = np.nonzero(picture > 12)
    assert picture.shape == (28, 28) and picture.dtype == np.uint8
    assert 18 <= rows.max() - rows.min() + 1 <= 20  # the longer side fitted to 20 px, as MNIST's digits
    weights = picture.astype(float)
    centre = (np.arange(28) @ weights.sum(axis=1) / weights.sum(), np.arange(28) @ weights.sum(axis=0) / weights.sum())
    assert centre == pytest.approx((13.5, 13.5), abs=1.0)  # centred by mass, not left where it was drawn
    draw(qtbot, pad, [(40, 40 + 10 * i) for i in range(12)], Qt.MouseButton.RightButton)
    assert pad.ink.max() < 0.5  # the right button erases
    draw(qtbot, pad, [(100, 100), (150, 150)])
    pad.clear()
    assert pad.is_empty() and not centred(pad.ink).any()


def test_the_pad_is_offered_only_for_28x28_grey_runs(tmp_path):
    store = RunStore(tmp_path / "home")
    grey = store.create_run(RunConfig())  # the bundled Fashion-MNIST subset: 1×28×28
    colour = store.create_run(RunConfig.from_dict({"data": {"name": "cifar10"}, "model": {"name": "cnn"}}))
    assert takes_28x28_grey(grey.dir) and not takes_28x28_grey(colour.dir) and not takes_28x28_grey(None)


def test_a_drawing_is_classified_by_the_run(qtbot):
    home, run_dir = shared_run()  # a finished one-epoch run of the bundled Fashion-MNIST subset
    shutil.rmtree(run_dir / "evaluations", ignore_errors=True)
    session = new_session(RunStore(home))
    widget = EvaluationTab(session)
    qtbot.addWidget(widget)
    widget.resize(1000, 700)
    widget.show()
    try:
        assert widget.select_run(run_dir.name)
        panel = widget.predict_panel
        widget.pages.setCurrentWidget(panel)
        qtbot.waitUntil(panel.pad.isVisible)
        draw(qtbot, panel.pad, [(panel.pad.width() // 2, 20 + 8 * i) for i in range(15)])
        qtbot.waitUntil(lambda: not widget.busy and panel.table.rowCount() == 1, timeout=90_000)
        assert panel.table.item(0, 0).text() == "drawing 1.png"
        predicted, probability = panel.table.item(0, 1).text().rsplit(" ", 1)
        assert predicted.strip() and 0.0 < float(probability) <= 1.0
        assert panel.selected_image() is not None  # a picture: its layer activations can be shown too
    finally:
        widget.shutdown()
        session.shutdown(wait_s=5)
