"""Drives Studio's real main window on the xcb platform with real input (xdotool through the X server) and
prints what it measured as one JSON line; run by tests/gui/test_real_window_input.py in a child process:

    python -m tests.gui.real_window_driver wheel|xaxis|kinds WIDTHxHEIGHT [SCREENSHOT_DIR]

(``STUDIO_THEME``: light, the default, or dark.)

``wheel``: the pointer over the settings panel's activation and optimizer combo boxes, wheel clicks down and up:
the config must not change and the panel must scroll; then a clicked (focused) spin box must take the wheel.
``kinds``: a text run then an image run: the Perplexity plot goes with the text run.
``xaxis``: real curve data, the x-axis box stepped by the keyboard through every mode: per mode the loss plot's
range and the curve pixels counted on the screen's image (the X server's, not Qt's own rendering)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
from PySide6.QtCore import QPoint, QRect
from PySide6.QtGui import QColor, QGuiApplication, QImage
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QComboBox, QSpinBox, QWidget

from studio.core.runs.store import RunStore
from studio.gui.app.main_window import MainWindow
from tests.gui.conftest import new_session


def xdotool(*args: str | int) -> None:
    subprocess.run(["xdotool", *map(str, args)], check=True, timeout=10)


def settle(ms: int = 250) -> None:
    """Let real input land: xdotool's events go through the X server, with nothing in this process to wait on."""
    QTest.qWait(ms)


def centre(widget: QWidget, fx: float = 0.5) -> QPoint:
    rect = widget.rect()
    return widget.mapToGlobal(QPoint(int(rect.width() * fx), rect.height() // 2))


def point_at(point: QPoint) -> None:
    xdotool("mousemove", point.x(), point.y())
    settle(150)


def screen_image(rect: QRect) -> np.ndarray:
    """The screen's pixels in ``rect`` (global coordinates) as an H×W×3 RGB array."""
    screen = QGuiApplication.primaryScreen()
    image = screen.grabWindow(0, rect.x(), rect.y(), rect.width(), rect.height()).toImage()
    image = image.convertToFormat(QImage.Format.Format_RGB888)
    stride = image.bytesPerLine()
    raw = np.frombuffer(image.constBits(), np.uint8, count=stride * image.height())
    return raw.reshape(image.height(), stride)[:, : image.width() * 3].reshape(image.height(), image.width(), 3)


def shoot(window: QWidget, shots: Path | None, name: str) -> None:
    if shots is not None:
        shots.mkdir(parents=True, exist_ok=True)
        QGuiApplication.primaryScreen().grabWindow(0).save(str(shots / f"{name}.png"))


def open_window(size: str) -> tuple[QApplication, MainWindow]:
    app = QApplication.instance() or QApplication([sys.argv[0]])
    assert isinstance(app, QApplication)
    window = MainWindow(new_session(RunStore()), probe_backend=False)
    window.themes.apply(os.environ.get("STUDIO_THEME", "light"), save=False)
    window.shell.confirm_close = lambda: True
    width, height = map(int, size.split("x"))
    window.move(0, 0)
    window.resize(width, height)
    window.show()
    QTest.qWaitForWindowExposed(window)
    window.activateWindow()
    settle(400)
    return app, window


def wheel(window: MainWindow, shots: Path | None, tag: str) -> dict[str, Any]:
    panel = window.settings
    bar = panel.verticalScrollBar()
    activation = panel.forms["model"].findChild(QComboBox, "param_activation")
    optimizer = panel.forms["optimizer"].combo
    window.run_list.setFocus()  # the focus is somewhere else, as after a click on the run list
    config = window.session.config.to_dict()
    shoot(window, shots, f"settings-{tag}-before")
    out: dict[str, Any] = {"scroll_range": bar.maximum(), "steps": []}
    for name, field in (("activation", activation), ("optimizer", optimizer)):
        bar.setValue(0)
        panel.ensureWidgetVisible(field, 20, 20)
        settle(150)
        start = bar.value()
        point_at(centre(field))
        under = QApplication.widgetAt(centre(field))
        xdotool("click", "--repeat", 3, "--delay", 80, 5)  # three wheel clicks down
        settle(400)
        down, value_down = bar.value(), field.currentText()
        unchanged_down = window.session.config.to_dict() == config
        xdotool("click", "--repeat", 3, "--delay", 80, 4)  # and three up
        settle(400)
        out["steps"].append({"field": name, "under_pointer": under is field or field.isAncestorOf(under),
                             "start": start, "after_down": down, "after_up": bar.value(),
                             "value_after_down": value_down, "config_unchanged_after_down": unchanged_down,
                             "value": field.currentText(), "focused": field.hasFocus()})
    out["config_unchanged"] = window.session.config.to_dict() == config
    out["activation"] = window.session.config.model.params.get("activation")
    out["optimizer"] = window.session.config.optimizer.name
    shoot(window, shots, f"settings-{tag}-after-wheel")
    # the same real wheel changes a field a person clicked into (the events do reach Qt)
    epochs = panel.train_form.widgets["epochs"]
    assert isinstance(epochs, QSpinBox)
    panel.ensureWidgetVisible(epochs, 20, 20)
    settle(150)
    before = window.session.config.train.epochs
    point_at(centre(epochs, 0.25))
    xdotool("click", 1)
    settle(200)
    xdotool("click", 4)
    settle(300)
    out["focused_epochs"] = {"focused": epochs.hasFocus(), "before": before,
                             "after": window.session.config.train.epochs}
    return out


def curve_data(epochs: int = 10) -> dict[str, tuple]:
    steps = list(range(20, 1001, 20))
    ends = [100 * i for i in range(1, epochs + 1)]
    loss = 0.3 + 1.7 * np.exp(-np.array(steps) / 250.0)
    return {"train/loss": (steps, loss.tolist(), [1000 + 0.05 * s for s in steps]),
            "val/loss": (ends, np.linspace(1.5, 0.4, epochs).tolist(), [1000 + 0.05 * s for s in ends]),
            "train/acc": (steps, (0.95 - 0.6 * np.exp(-np.array(steps) / 250.0)).tolist(),
                          [1000 + 0.05 * s for s in steps]),
            "epoch": (ends, list(range(1, epochs + 1)), [1000 + 0.05 * s for s in ends])}


def xaxis(window: MainWindow, shots: Path | None, tag: str) -> dict[str, Any]:
    curves = window.curves_pane.curves
    window.themes.apply(os.environ.get("STUDIO_THEME", "light"), save=False)  # the plots, built after the window
    curves.show_runs({"r": curve_data()}, {"r": "demo run"}, {"r": 45})
    settle(300)
    colour = np.array(QColor(curves.colours()["r"]).getRgb()[:3], dtype=float)
    box = curves.x_box
    point_at(centre(box))
    xdotool("click", 1)  # opens the list; Escape closes it and leaves the box focused
    settle(300)
    xdotool("key", "Escape")
    settle(200)
    modes = []
    for key in ["", "Down", "Down", "Down", "Up", "Up", "Up"]:  # step, epoch, samples, wall and back
        if key:
            xdotool("key", key)
            settle(400)
        plot = curves.plots["loss"]
        view = plot.getViewBox()
        local = curves.graphics.mapFromScene(view.sceneBoundingRect()).boundingRect()
        rect = QRect(curves.graphics.mapToGlobal(local.topLeft()), local.size()).adjusted(2, 2, -2, -2)
        pixels = screen_image(rect).astype(float)
        near = np.linalg.norm(pixels - colour, axis=2) < 60
        columns = np.flatnonzero(near.any(axis=0))
        bounds = curves.data_bounds("loss")
        modes.append({"mode": curves.x_mode, "range": plot.viewRange(), "bounds": bounds,
                      "curve_pixels": int(near.sum()), "width": rect.width(),
                      "columns_spanned": int(columns[-1] - columns[0] + 1) if len(columns) else 0})
        shoot(window, shots, f"curves-{tag}-{len(modes)}-{curves.x_mode}")
    return {"modes": modes, "box_focused": box.hasFocus()}


def kinds(window: MainWindow, shots: Path | None, tag: str) -> dict[str, Any]:
    """A text run (with its Perplexity plot) shown, then an image run: what is on screen each time."""
    curves = window.curves_pane.curves
    window.themes.apply(os.environ.get("STUDIO_THEME", "light"), save=False)
    out: dict[str, Any] = {}
    text = {"train/loss": ([10, 20, 30], [5.0, 4.5, 4.2]), "train/perplexity": ([10, 20, 30], [150.0, 90.0, 67.0])}
    for name, data in (("text", {"t": text}), ("image", {"i": curve_data()})):
        curves.show_runs(data, {k: f"{name} run" for k in data}, {k: 32 for k in data})
        settle(400)
        loss = curves.plots["loss"]
        out[name] = {"plots": sorted(curves.plots), "loss_height": loss.getViewBox().sceneBoundingRect().height(),
                     "scene_plots": sum(1 for item in curves.graphics.ci.items)}
        shoot(window, shots, f"kinds-{tag}-{name}")
    return out


def main(argv: list[str]) -> int:
    what, size = argv[0], argv[1]
    shots = Path(argv[2]) if len(argv) > 2 else None
    app, window = open_window(size)
    try:
        tag = f"{size}-{os.environ.get('STUDIO_THEME', 'light')}"
        result = {"wheel": wheel, "xaxis": xaxis, "kinds": kinds}[what](window, shots, tag)
    finally:
        window.close()
        window.session.shutdown(wait_s=10)
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
