"""Edge of stability: the sharpness while full-batch GD trains, against the dashed 2/η (or (2 + 2β)/η) line,
and the training loss beside it (log axis)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg

from studio.gui.demos import style
from studio.gui.demos.base import DemoView

KEYS = ("step", "sharpness", "loss")


class EdgeOfStabilityView(DemoView):
    demo = "edge_of_stability"
    rate = 15.0

    def build_plots(self) -> None:
        self.sharp_plot = self.graphics.addPlot(row=0, col=0)
        self.sharp_plot.showGrid(x=True, y=True, alpha=0.25)
        self.sharp_plot.addLegend(offset=(-10, -10))
        self.loss_plot = self.graphics.addPlot(row=0, col=1)
        self.loss_plot.showGrid(x=True, y=True, alpha=0.25)
        self.graphics.ci.layout.setColumnStretchFactor(0, 3)
        self.graphics.ci.layout.setColumnStretchFactor(1, 2)
        self.sharp_item = self.sharp_plot.plot([], [], name="sharpness λ_max", symbol="o")
        self.limit_item = self.sharp_plot.plot([], [], name="2/η")
        self.loss_item = self.loss_plot.plot([], [])
        self.rows: dict[str, list[float]] = {k: [] for k in KEYS}
        self.losses: list[float] = []  # the loss of every step
        self.limit = float("nan")
        for plot in (self.sharp_plot, self.loss_plot):
            style.shrinkable_title(plot)

    def threshold_name(self) -> str:
        return "(2 + 2β)/η" if float(self.params.get("momentum", 0.0)) > 0 else "2/η"

    def clear_data(self) -> None:
        self.rows = {k: [] for k in KEYS}
        self.losses = []
        self.limit = float("nan")
        for item in (self.sharp_item, self.limit_item, self.loss_item):
            item.setData([], [])

    def on_frame(self, frame: dict[str, Any]) -> None:
        for k in KEYS:
            self.rows[k].append(float(frame[k]))
        self.limit = float(frame["threshold"])
        start = int(frame.get("loss_from", len(self.losses)))
        self.losses[start:] = [float(v) for v in frame.get("losses", [frame["loss"]])]

    def on_result(self, result: dict[str, Any]) -> None:
        self.rows = {k: [float(v) for v in result["curves"][k]] for k in KEYS}
        self.losses = [float(v) for v in result["losses"]]
        self.limit = float(result["summary"]["threshold"])

    def frame_count(self) -> int:
        return len(self.rows["step"])

    def show_frame(self, index: int) -> None:
        n = index + 1
        steps = np.asarray(self.rows["step"][:n])
        if not len(steps):
            return
        sharp = np.asarray(self.rows["sharpness"][:n])
        last_step = int(steps[-1])
        end = max(float(steps[-1]), float(self.params.get("steps", steps[-1])))
        self.sharp_item.setData(steps, sharp)
        self.limit_item.setData([0.0, end], [self.limit, self.limit])
        self.sharp_plot.setXRange(0, end, padding=0.02)
        top = max(float(np.nanmax(sharp)), self.limit) * 1.15
        self.sharp_plot.setYRange(0, top, padding=0)
        losses = np.asarray(self.losses[:last_step + 1])
        self.loss_item.setData(np.arange(len(losses)), style.log_values(losses), connect="finite")
        self.loss_plot.setXRange(0, end, padding=0.02)
        shown = style.log_values(losses[losses > 0]) if len(losses) else np.array([])
        if len(shown):
            style.log_axis(self.loss_plot, "left", float(np.nanmin(shown)), float(np.nanmax(shown)))
        self._legend_name()
        ratio = sharp[-1] / self.limit if self.limit > 0 else float("nan")
        name = self.threshold_name()
        where = ("at the edge" if 0.9 <= ratio <= 1.2 else "above the edge" if ratio > 1.2
                 else "below the edge: still sharpening")
        self.set_caption(f"Step {last_step}: sharpness {sharp[-1]:.1f}, {name} = {self.limit:.1f} "
                         f"({ratio:.2f}×, {where}); loss {losses[-1]:.4f}.",
                         short=f"Step {last_step}: sharpness {sharp[-1]:.0f} vs {name} = {self.limit:.0f}")

    def _legend_name(self) -> None:
        legend = self.sharp_plot.legend
        if legend is None:
            return
        name = f"{self.threshold_name()} = {self.limit:.3g}" if np.isfinite(self.limit) else self.threshold_name()
        for sample, label in legend.items:
            if sample.item is self.limit_item and label.text != name:
                label.setText(name, size=style.metrics(self.presentation)[3], color=style.ink(self.presentation))

    def data_items(self) -> list[pg.GraphicsObject]:
        return [self.sharp_item, self.limit_item, self.loss_item]

    def restyle(self) -> None:
        on = self.presentation
        size = style.metrics(on)[1] * 0.6
        self.sharp_item.setPen(style.pen(style.colour(0), on))
        self.sharp_item.setSymbolPen(None)
        self.sharp_item.setSymbolBrush(style.colour(0))
        self.sharp_item.setSymbolSize(size)
        self.limit_item.setPen(style.pen(style.colour(3), on, dashed=True))
        self.loss_item.setPen(style.pen(style.colour(2), on))
        style.style_plot(self.sharp_plot, "sharpness (top Hessian eigenvalue)", on, "step", "λ_max")
        style.style_plot(self.loss_plot, "training loss", on, "step", "½‖f(x) − y‖²")
