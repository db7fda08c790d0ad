"""The gradient noise scale: B_simple while the model trains, against the batch size it trains with."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg

from studio.gui.demos import style
from studio.gui.demos.base import DemoView

KEYS = ("step", "b_simple", "train_loss")


class NoiseScaleView(DemoView):
    demo = "noise_scale"
    rate = 30.0

    def build_plots(self) -> None:
        self.scale_plot = self.graphics.addPlot(row=0, col=0)
        self.scale_plot.showGrid(x=True, y=True, alpha=0.25)
        self.scale_plot.addLegend(offset=(-10, -10))
        self.loss_plot = self.graphics.addPlot(row=0, col=1)
        self.loss_plot.showGrid(x=True, y=True, alpha=0.25)
        self.graphics.ci.layout.setColumnStretchFactor(0, 3)
        self.graphics.ci.layout.setColumnStretchFactor(1, 2)
        self.scale_item = self.scale_plot.plot([], [], name="B_simple = tr(Σ)/|G|²")
        self.batch_item = self.scale_plot.plot([], [], name="training batch")
        self.loss_item = self.loss_plot.plot([], [])
        self.rows: dict[str, list[float]] = {k: [] for k in KEYS}
        self.scale_title = "noise scale B_simple"

    def clear_data(self) -> None:
        self.rows = {k: [] for k in KEYS}
        for item in (self.scale_item, self.batch_item, self.loss_item):
            item.setData([], [])

    def on_frame(self, frame: dict[str, Any]) -> None:
        for k in KEYS:
            self.rows[k].append(float(frame[k]))

    def on_result(self, result: dict[str, Any]) -> None:
        self.rows = {k: [float(v) for v in result["curves"][k]] for k in KEYS}

    def frame_count(self) -> int:
        return len(self.rows["step"])

    def show_frame(self, index: int) -> None:
        n = index + 1
        steps = np.asarray(self.rows["step"][:n])
        if not len(steps):
            return
        scale = np.asarray(self.rows["b_simple"][:n])
        scale = np.where(scale > 0, scale, np.nan)  # an early negative estimate has no log
        batch = float(self.params["batch_size"])
        self.scale_item.setData(steps, style.log_values(scale), connect="finite")
        self.batch_item.setData([steps[0], steps[-1]], style.log_values(np.array([batch, batch])))
        shown = style.log_values(np.concatenate([scale, [batch]]))
        style.log_axis(self.scale_plot, "left", float(np.nanmin(shown)), float(np.nanmax(shown)))
        self.loss_item.setData(steps, np.asarray(self.rows["train_loss"][:n]))
        last = scale[-1]
        verdict = ("larger batches would still pay" if last > batch else "larger batches would pay little") \
            if np.isfinite(last) else "estimating…"
        value = f"{last:.0f}" if np.isfinite(last) else "…"
        self.set_caption(f"Step {int(steps[-1])}: B_simple ≈ {value}, training batch {int(batch)}: {verdict}.")

    def data_items(self) -> list[pg.GraphicsObject]:
        return [self.scale_item, self.batch_item, self.loss_item]

    def restyle(self) -> None:
        on = self.presentation
        self.scale_item.setPen(style.pen(style.colour(0), on))
        self.batch_item.setPen(style.pen(style.colour(3), on, dashed=True))
        self.loss_item.setPen(style.pen(style.colour(2), on))
        style.style_plot(self.scale_plot, self.scale_title, on, "step", "batch size")
        style.style_plot(self.loss_plot, "training loss", on, "step", "cross-entropy")


