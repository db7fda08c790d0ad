"""The classification playground: the decision boundary as a heat map under the points, live while the
MLP trains, and the train/test loss curves beside it."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF

from studio.gui.demos import style
from studio.gui.demos.base import DemoView
from studio.gui.plots.palette import OKABE_ITO

# P(class 1): orange for class 0, white at ½, blue for class 1 (the points' colours, lighter)
BOUNDARY = pg.ColorMap([0.0, 0.5, 1.0], [(245, 190, 110), (255, 255, 255), (120, 175, 225)])
CLASS_COLOURS = (OKABE_ITO[1], OKABE_ITO[0])


class PlaygroundView(DemoView):
    demo = "playground"
    rate = 12.0

    def build_plots(self) -> None:
        self.map = self.graphics.addPlot(row=0, col=0)
        self.map.setAspectLocked(True)
        self.image = pg.ImageItem()
        self.image.setColorMap(BOUNDARY)
        self.image.setZValue(-10)
        self.map.addItem(self.image)
        self.train_points = pg.ScatterPlotItem()
        self.test_points = pg.ScatterPlotItem()
        self.map.addItem(self.train_points)
        self.map.addItem(self.test_points)
        self.curves = self.graphics.addPlot(row=0, col=1)
        self.curves.addLegend(offset=(-10, 10))
        self.curves.showGrid(x=True, y=True, alpha=0.25)
        self.train_curve = self.curves.plot([], [], name="train loss")
        self.test_curve = self.curves.plot([], [], name="test loss")
        self.graphics.ci.layout.setColumnStretchFactor(0, 3)
        self.graphics.ci.layout.setColumnStretchFactor(1, 2)
        self.frames: list[dict[str, Any]] = []
        self.setup: dict[str, Any] | None = None
        self.map_title = "decision boundary"

    def clear_data(self) -> None:
        self.frames, self.setup = [], None
        self.image.clear()
        for item in (self.train_points, self.test_points):
            item.setData([], [])
        self.train_curve.setData([], [])
        self.test_curve.setData([], [])

    def on_frame(self, frame: dict[str, Any]) -> None:
        if "setup" in frame:
            self.setup = frame["setup"]
            self._draw_points()
        else:
            self.frames.append(frame)

    def on_result(self, result: dict[str, Any]) -> None:
        if self.setup is None:
            self.setup = {k: result[k] for k in ("x_train", "y_train", "x_test", "y_test", "box")}
            self._draw_points()
        self.frames = list(result["frames"])

    def _draw_points(self) -> None:
        s = self.setup
        if s is None:  # never: called once the setup has come
            return
        x0, x1, y0, y1 = s["box"]
        self.map.setRange(xRange=(x0, x1), yRange=(y0, y1), padding=0)
        self.restyle()

    def frame_count(self) -> int:
        return len(self.frames)

    def show_frame(self, index: int) -> None:
        if not self.frames or self.setup is None:
            return
        frame = self.frames[min(index, len(self.frames) - 1)]
        p = frame["p"]
        x0, x1, y0, y1 = self.setup["box"]
        self.image.setImage(p.T, levels=(0.0, 1.0))
        n = p.shape[0]
        dx, dy = (x1 - x0) / (n - 1), (y1 - y0) / (n - 1)
        self.image.setRect(QRectF(x0 - dx / 2, y0 - dy / 2, dx * n, dy * n))
        shown = self.frames[:index + 1]
        steps = np.array([f["step"] for f in shown], dtype=float)
        self.train_curve.setData(steps, np.array([f["train_loss"] for f in shown]))
        self.test_curve.setData(steps, np.array([f["test_loss"] for f in shown]))
        self.set_caption(f"Step {frame['step']}: train accuracy {frame['train_acc']:.1%}, test accuracy "
                         f"{frame['test_acc']:.1%} (filled points: train, rings: test)",
                         short=f"Step {frame['step']}: train {frame['train_acc']:.0%}, test {frame['test_acc']:.0%}")

    def data_items(self) -> list[pg.GraphicsObject]:
        return [self.train_points, self.test_points, self.train_curve, self.test_curve]

    def restyle(self) -> None:
        on = self.presentation
        marker = style.metrics(on)[1]
        if self.setup is not None:
            s = self.setup
            brushes = [pg.mkBrush(CLASS_COLOURS[int(c)]) for c in s["y_train"]]
            self.train_points.setData(s["x_train"][:, 0], s["x_train"][:, 1], brush=brushes, size=marker * 0.8,
                                      pen=pg.mkPen("#000000" if on else "#ffffff", width=1))
            pens = [pg.mkPen(CLASS_COLOURS[int(c)], width=2.5 if on else 1.5) for c in s["y_test"]]
            self.test_points.setData(s["x_test"][:, 0], s["x_test"][:, 1], pen=pens, brush=pg.mkBrush(0, 0, 0, 0),
                                     size=marker * 0.8)
        self.train_curve.setPen(style.pen(style.colour(0), on))
        self.test_curve.setPen(style.pen(style.colour(3), on, dashed=True))
        style.style_plot(self.map, self.map_title, on, "x₁", "x₂")
        style.style_plot(self.curves, "loss", on, "step", "cross-entropy")
