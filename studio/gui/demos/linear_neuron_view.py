"""The linear neuron: the noisy line with the current fits, the (w, b) contour with the GD and SGD paths,
and both losses against the step; a batch-size slider recomputes at once."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSlider, QVBoxLayout

from studio.gui.demos import style
from studio.gui.demos.base import DemoView
from studio.gui.demos.contour import ContourMap

BATCHES = (1, 2, 4, 8, 16, 32, 64, 128)


class LinearNeuronView(DemoView):
    demo = "linear_neuron"
    rate = 25.0
    auto_rerun = True

    def build_extra_controls(self, layout: QVBoxLayout) -> None:
        row = QHBoxLayout()
        self.batch_label = QLabel()
        self.batch_slider = QSlider(Qt.Orientation.Horizontal)
        self.batch_slider.setObjectName("batch_slider")
        self.batch_slider.setRange(0, len(BATCHES) - 1)
        self.batch_slider.setToolTip("SGD's mini-batch size: drag it down and watch the path get noisy")
        self.batch_slider.setValue(BATCHES.index(4))
        self.batch_slider.valueChanged.connect(self._batch_moved)
        row.addWidget(QLabel("SGD batch size"))
        row.addWidget(self.batch_slider, 1)
        row.addWidget(self.batch_label)
        layout.addLayout(row)
        self._batch_moved(self.batch_slider.value(), recompute=False)

    def _batch_moved(self, index: int, recompute: bool = True) -> None:
        batch = BATCHES[index]
        self.batch_label.setText(f"{batch:>4}")
        if recompute:
            self.set_params({"batch_size": batch})
            if self.result is not None or self.busy:
                self.rerun_timer.start()

    def build_plots(self) -> None:
        self.data_plot = self.graphics.addPlot(row=0, col=0)
        self.data_plot.addLegend(offset=(10, 10))
        self.points = pg.ScatterPlotItem(size=6, brush=pg.mkBrush(120, 120, 120, 160), pen=None)
        self.data_plot.addItem(self.points)
        self.map = self.graphics.addPlot(row=0, col=1, rowspan=2)
        self.map.addLegend(offset=(10, 10))
        self.contour = ContourMap(self.map)
        self.optimum = pg.ScatterPlotItem(symbol="star", brush="#000000", pen="#ffffff")
        self.optimum.setZValue(5)
        self.map.addItem(self.optimum)
        self.loss_plot = self.graphics.addPlot(row=1, col=0)
        self.loss_plot.showGrid(x=True, y=True, alpha=0.25)
        self.graphics.ci.layout.setColumnStretchFactor(1, 2)
        self.lines = [pg.PlotDataItem([], [], name=n) for n in ("GD fit", "SGD fit")]
        self.paths = [pg.PlotDataItem([], [], name=n) for n in ("full-batch GD", "mini-batch SGD")]
        self.heads = [pg.ScatterPlotItem(symbol="o") for _ in range(2)]
        self.losses = [pg.PlotDataItem([], []) for _ in range(2)]
        for line in self.lines:
            self.data_plot.addItem(line)
        for i, (path, head) in enumerate(zip(self.paths, self.heads, strict=True)):
            path.setZValue(10 + i)
            head.setZValue(20 + i)
            self.map.addItem(path)
            self.map.addItem(head)
        for loss in self.losses:
            self.loss_plot.addItem(loss)

    def clear_data(self) -> None:
        for item in self.lines + self.paths + self.losses:
            item.setData([], [])
        for head in self.heads:
            head.setData([], [])

    def on_result(self, result: dict[str, Any]) -> None:
        self.points.setData(result["x"], result["y"])
        grid = result["grid"]
        self.contour.show(grid["x"], grid["y"], grid["z"], grid["levels"])
        self.optimum.setData([result["optimum"][0]], [result["optimum"][1]], size=16)
        self.map.setRange(xRange=(grid["x"][0], grid["x"][-1]), yRange=(grid["y"][0], grid["y"][-1]), padding=0)
        floor = max(result["summary"]["least_squares"]["loss"] * 0.9, 1e-12)
        top = float(np.nanmax(result["losses"]))
        lo, hi = np.log10(floor), np.log10(max(top, floor * 10))
        self.loss_plot.setRange(xRange=(0, result["losses"].shape[1] - 1), yRange=(lo, hi))
        style.log_axis(self.loss_plot, "left", lo, hi)
        self.loss_plot.disableAutoRange()
        self.restyle()

    def frame_count(self) -> int:
        return 0 if self.result is None else self.result["paths"].shape[1]

    def show_frame(self, index: int) -> None:
        if self.result is None:
            return
        xs = np.array([self.result["x"].min(), self.result["x"].max()])
        steps = np.arange(index + 1)
        for i in range(2):
            w, b = self.result["paths"][i, index]
            self.lines[i].setData(xs, w * xs + b)
            self.paths[i].setData(self.result["paths"][i, :index + 1, 0], self.result["paths"][i, :index + 1, 1])
            self.heads[i].setData([w], [b])
            self.losses[i].setData(steps, style.log_values(self.result["losses"][i, :index + 1]))
        stopped = self.result["stopped_at"]
        note = (f" GD stopped at step {stopped}: the loss changed by less than the tolerance."
                if stopped and index >= stopped else "")
        (wg, bg), (ws, bs) = self.result["paths"][0, index], self.result["paths"][1, index]
        batch = self.result["summary"]["sgd"]["batch_size"]
        w_star, b_star = self.result["optimum"]
        self.set_caption(f"Step {index}: GD w = {wg:.3f}, b = {bg:.3f} · SGD (batch {batch}) w = {ws:.3f}, "
                         f"b = {bs:.3f} · least squares w = {w_star:.3f}, b = {b_star:.3f}.{note}",
                         short=f"Step {index} · least squares w = {w_star:.2f}, b = {b_star:.2f}.{note}")

    def data_items(self) -> list[pg.GraphicsObject]:
        return [self.points, *self.lines, *self.paths, *self.heads, *self.losses]

    def restyle(self) -> None:
        on = self.presentation
        marker = style.metrics(on)[1]
        for i in range(2):
            c = style.colour(i)
            for item in (self.lines[i], self.paths[i], self.losses[i]):
                item.setPen(style.pen(c, on, dashed=item is self.lines[i] and i == 1))
            self.heads[i].setSize(marker)
            self.heads[i].setBrush(pg.mkBrush(c))
            self.heads[i].setPen(pg.mkPen("#000000" if on else "#ffffff", width=1.5))
        self.points.setSize(9 if on else 6)
        self.contour.restyle(on)
        style.style_plot(self.data_plot, "data and fits", on, "x", "y")
        style.style_plot(self.map, "loss over (w, b)", on, "w", "b")
        style.style_plot(self.loss_plot, "loss (log scale)", on, "step", "MSE")
