"""Overfitting and regularisation: one small plot per variant, train and validation loss per epoch, the
gap between them shaded. The newest epoch's two losses are drawn as markers (so the first frame, epoch 0 alone,
shows its two points), and the epoch axis spans the whole run from the first frame on."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF
from PySide6.QtGui import QPainterPath, QPolygonF
from PySide6.QtWidgets import QGraphicsPathItem

from studio.gui.demos import style
from studio.gui.demos.base import DemoView

TITLES = {"none": "none", "dropout": "dropout", "weight_decay": "weight decay",
          "augmentation": "augmentation"}


class Panel:
    """One variant's plot: train and validation loss and the shaded gap."""

    def __init__(self, plot: pg.PlotItem) -> None:
        self.plot = plot
        plot.showGrid(x=True, y=True, alpha=0.25)
        plot.addLegend(offset=(-10, 10))
        self.train = plot.plot([], [], name="train")
        self.val = plot.plot([], [], name="validation")
        # the newest epoch's train and validation loss as markers: a line through one point draws nothing
        self.heads = [plot.plot([], [], pen=None, symbol="o"), plot.plot([], [], pen=None, symbol="s")]
        # the gap, as a polygon (pyqtgraph's FillBetweenItem fails with some PySide6 versions)
        self.fill = QGraphicsPathItem()
        self.fill.setBrush(pg.mkBrush(213, 94, 0, 70))
        self.fill.setPen(pg.mkPen(None))
        self.fill.setZValue(-5)
        plot.addItem(self.fill)
        self.name = ""
        self.title = ""

    def set_data(self, epochs: np.ndarray, train: np.ndarray, val: np.ndarray) -> None:
        self.train.setData(epochs, train)
        self.val.setData(epochs, val)
        for head, values in zip(self.heads, (train, val), strict=True):
            head.setData(epochs[-1:], values[-1:])
        path = QPainterPath()
        if len(epochs) > 1:
            points = [QPointF(float(x), float(y)) for x, y in zip(epochs, train, strict=True)]
            points += [QPointF(float(x), float(y)) for x, y in zip(epochs[::-1], val[::-1], strict=True)]
            path.addPolygon(QPolygonF(points))
        self.fill.setPath(path)

    def gap_area(self) -> float:
        rect = self.fill.path().boundingRect()
        return rect.width() * rect.height()


class RegularisationView(DemoView):
    demo = "regularisation"
    rate = 6.0

    def build_plots(self) -> None:
        self.panels = [Panel(self.graphics.addPlot(row=i // 2, col=i % 2)) for i in range(4)]
        for panel in self.panels:
            style.shrinkable_title(panel.plot)  # a long title must not push the right column out of view
        self.epochs: list[dict[str, Any]] = []
        self.planned_epochs = 0  # the epochs of the run being computed: the x axis spans them from epoch 0 on

    def clear_data(self) -> None:
        self.epochs = []
        self.planned_epochs = int(self.params.get("epochs", 0))
        for panel in self.panels:
            panel.set_data(np.zeros(0), np.zeros(0), np.zeros(0))
            panel.name = panel.title = ""
            panel.plot.setTitle("")

    def on_frame(self, frame: dict[str, Any]) -> None:
        self.epochs.append(frame)

    def on_result(self, result: dict[str, Any]) -> None:
        history = result["history"]
        names = list(history)
        self.epochs = [{"epoch": int(e), "rows": {n: {k: float(history[n][k][e]) for k in history[n]} for n in names}}
                       for e in result["epochs"]]
        self.planned_epochs = int(self.epochs[-1]["epoch"]) if self.epochs else 0

    def frame_count(self) -> int:
        return len(self.epochs)

    def show_frame(self, index: int) -> None:
        shown = self.epochs[:index + 1]
        if not shown:
            return
        names = list(shown[0]["rows"])
        epochs = np.array([f["epoch"] for f in shown], dtype=float)
        top = max(max(r["val_loss"], r["train_loss"]) for f in self.epochs for r in f["rows"].values())
        last = shown[-1]["rows"]
        self.set_caption(f"Epoch {int(epochs[-1])}: validation accuracy " + ", ".join(
            f"{TITLES.get(n, n)} {last[n]['val_acc']:.0%}" for n in names) + " (shaded: validation − train loss)",
            short=f"Epoch {int(epochs[-1])} · shaded: validation − train loss")
        last_epoch = max(self.planned_epochs, int(self.epochs[-1]["epoch"]), 1)
        for i, panel in enumerate(self.panels):
            panel.plot.setVisible(i < len(names))  # a run of fewer variants: no empty axes in the spare panels
        for panel, name in zip(self.panels, names, strict=False):
            train = np.array([f["rows"][name]["train_loss"] for f in shown])
            val = np.array([f["rows"][name]["val_loss"] for f in shown])
            panel.set_data(epochs, train, val)
            row = shown[-1]["rows"][name]
            panel.name = name
            panel.title = f"{TITLES.get(name, name)}: gap {row['train_acc'] - row['val_acc']:+.0%}"
            panel.plot.setTitle(panel.title, size=style.metrics(self.presentation)[2],
                                color=style.ink(self.presentation))
            panel.plot.setRange(xRange=(0, last_epoch), yRange=(0, top * 1.05), padding=0.02)

    def data_items(self) -> list[pg.GraphicsObject]:
        names = list(self.epochs[0]["rows"]) if self.epochs else []
        return [item for panel in self.panels[:len(names)] for item in (panel.train, panel.val)]

    def restyle(self) -> None:
        on = self.presentation
        for panel in self.panels:
            panel.train.setPen(style.pen(style.colour(0), on))
            panel.val.setPen(style.pen(style.colour(3), on, dashed=True))
            for head, c in zip(panel.heads, (style.colour(0), style.colour(3)), strict=True):
                head.setSymbolSize(style.metrics(on)[1])
                head.setSymbolPen(pg.mkPen(c, width=1))
                head.setSymbolBrush(pg.mkBrush(c))
            style.style_plot(panel.plot, panel.title, on, "epoch", "loss")
