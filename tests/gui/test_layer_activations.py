"""Predict's "Layer activations" (issue 22 point 8, DIGITS' view): classify an image, press Show layer
activations, and every layer's output is drawn: feature maps as a grid of images, linear layers as strips."""

from __future__ import annotations

import numpy as np
from PIL import Image
from PySide6.QtGui import QImage

from studio.core.runs.store import RunStore
from studio.core.vocab import JobKind
from studio.gui.app.main_window import MainWindow
from studio.gui.widgets.activations_view import HINT, ActivationsView, map_mosaic, vector_strip
from tests.gui.conftest import new_session
from tests.unit.eval_run import shared_run


def pixels(label) -> np.ndarray:
    image = label.pixmap().toImage().convertToFormat(QImage.Format.Format_RGB32)
    return np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.bytesPerLine() // 4, 4)[..., :3]


def test_mosaic_and_strip_shapes():
    maps = np.arange(5 * 7 * 7, dtype=np.float32).reshape(5, 7, 7)
    mosaic = map_mosaic(maps, tile=14, columns=3)  # 7 px maps doubled, 3 per row, 2 rows, 2 px gaps
    assert mosaic.shape == (2 * 14 + 2, 3 * 14 + 2 * 2)
    assert mosaic[0, 0] == 0 and mosaic[-1 - 0, 16 + 13] == 255  # the first value black, the last white
    strip = vector_strip(np.linspace(0, 1, 10, dtype=np.float32))
    assert strip.shape[2] == 3 and strip.shape[0] == 14 and not np.array_equal(strip[0, 0], strip[0, -1])


def test_a_conv_result_is_drawn_as_map_grids_and_strips(qtbot):
    import torch

    from studio.engine.tasks.activations import describe, layer_outputs

    net = torch.nn.Sequential(torch.nn.Conv2d(1, 6, 3, padding=1), torch.nn.ReLU(), torch.nn.Flatten(),
                              torch.nn.Linear(6 * 12 * 12, 5))
    torch.manual_seed(0)
    x = torch.randn(1, 1, 12, 12)
    out, found = layer_outputs(net, x, max_maps=4)
    result = {"run_id": "r1", "checkpoint": "final", "input": "/tmp/a.png", "predicted": "3", "probability": 0.5,
              "layers": [describe("input", None, x, 4), *found], "seconds": 0.1}
    view = ActivationsView()
    qtbot.addWidget(view)
    assert HINT in view.heading.text()
    view.resize(700, 500)
    view.show()
    view.show_result(result)
    assert len(view.images) == 4  # input, conv, relu, linear
    conv = pixels(view.images[1])
    assert conv.shape[:2] == (48, 4 * 48 + 3 * 2)  # 4 of 6 maps, 12 px enlarged to 48, in one row
    assert len(np.unique(conv.reshape(-1, 3), axis=0)) > 20  # a real picture, not a flat box
    strip = pixels(view.images[3])
    levels = np.unique(np.round((found[-1]["values"] - found[-1]["values"].min()) / np.ptp(found[-1]["values"]) * 255))
    assert strip.shape[0] == 14 and len(np.unique(strip.reshape(-1, 3), axis=0)) == len(levels) >= 3  # a colour a unit
    assert "Conv2d" in view.images[1].toolTip() and "first 4 of 6 maps" in view.images[1].toolTip()


def test_predict_then_show_layer_activations_in_the_evaluation_tab(qtbot, tmp_path):
    home, run_dir = shared_run()
    session = new_session(RunStore(home))
    win = MainWindow(session, probe_backend=False)
    win.shell.confirm_close = lambda: True
    qtbot.addWidget(win)
    win.show()
    try:
        from studio.core.datasets.bundled import load_fashion_mnist_small

        Image.fromarray(load_fashion_mnist_small().x_test[0, 0].numpy()).save(tmp_path / "boot.png")
        evaluation = win.pages.tab("Evaluation")
        assert evaluation.select_run(run_dir.name)
        panel = evaluation.predict_panel
        assert not panel.activations_button.isEnabled()
        evaluation.predict([str(tmp_path / "boot.png")])
        qtbot.waitUntil(lambda: not evaluation.busy and panel.table.rowCount() == 1, timeout=90_000)
        assert panel.activations_button.isEnabled()  # the classified image is selected
        panel.activations_button.click()
        assert session.running(JobKind.EVALUATION) and panel.activations.pending
        qtbot.waitUntil(lambda: not evaluation.busy, timeout=90_000)
        view = panel.activations
        assert not view.pending and "boot.png" in view.heading.text() and len(view.images) == 4
        image = pixels(view.images[0])  # the input itself, 28 px enlarged
        assert image.shape[:2] == (28, 28) or image.shape[0] % 28 == 0
        assert len(np.unique(image.reshape(-1, 3), axis=0)) > 20
        assert all(label.pixmap().width() > 0 for label in view.images)
    finally:
        session.shutdown(wait_s=10)


def test_narrow_views_wrap_the_maps(qtbot):
    maps = np.random.default_rng(0).random((16, 14, 14)).astype(np.float32)
    layer = {"name": "0", "layer": "Conv2d", "shape": [16, 14, 14], "kind": "maps", "values": maps, "low": 0.0,
             "high": 1.0}
    result = {"run_id": "r", "checkpoint": "final", "input": "a.png", "predicted": "1", "probability": 0.9,
              "layers": [layer], "seconds": 0.1}
    view = ActivationsView()
    qtbot.addWidget(view)
    view.resize(900, 400)
    view.show()
    view.show_result(result)
    wide = view.images[0].pixmap().width()
    view.resize(330, 400)  # redrawn for the narrower width: fewer maps per row, more rows
    qtbot.waitUntil(lambda: view.images[0].pixmap().width() < wide)
    assert view.images[0].pixmap().width() <= view.viewport().width()
