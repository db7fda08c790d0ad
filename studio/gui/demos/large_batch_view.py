"""The large-batch lab: as each batch size finishes, its steps to target, top Hessian eigenvalue and
train–test gap join the plots; at the end, the loss between the smallest- and largest-batch solutions."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg

from studio.gui.demos import style
from studio.gui.demos.base import DemoView


class LargeBatchView(DemoView):
    demo = "large_batch"
    rate = 1.5

    def build_plots(self) -> None:
        self.steps_plot = self.graphics.addPlot(row=0, col=0)
        self.eig_plot = self.graphics.addPlot(row=0, col=1)
        self.gap_plot = self.graphics.addPlot(row=1, col=0)
        self.interp_plot = self.graphics.addPlot(row=1, col=1)
        for plot in (self.steps_plot, self.eig_plot, self.gap_plot):
            plot.showGrid(x=True, y=True, alpha=0.25)
        for plot in (self.steps_plot, self.interp_plot):
            plot.addLegend(offset=(-10, 10))
        self.interp_plot.showGrid(x=True, y=True, alpha=0.25)
        self.steps_item = self.steps_plot.plot([], [], name="measured")
        self.ideal_item = self.steps_plot.plot([], [], name="perfect scaling")
        self.eig_item = self.eig_plot.plot([], [])
        self.gap_item = self.gap_plot.plot([], [])
        self.interp_train = self.interp_plot.plot([], [], name="train loss")
        self.interp_test = self.interp_plot.plot([], [], name="test loss")
        self.ends = [pg.InfiniteLine(pos=a, angle=90, movable=False) for a in (0.0, 1.0)]
        for line in self.ends:
            self.interp_plot.addItem(line)
            line.setVisible(False)
        self.runs: list[dict[str, Any]] = []
        self.interpolation: dict[str, Any] | None = None
        self.interp_title = "1-D interpolation"

    def clear_data(self) -> None:
        self.runs, self.interpolation = [], None
        for item in (self.steps_item, self.ideal_item, self.eig_item, self.gap_item, self.interp_train,
                     self.interp_test):
            item.setData([], [])
        for line in self.ends:
            line.setVisible(False)

    def on_frame(self, frame: dict[str, Any]) -> None:
        if "run" in frame:
            self.runs.append(frame["run"])
        elif "interpolation" in frame:
            self.interpolation = frame["interpolation"]

    def on_result(self, result: dict[str, Any]) -> None:
        self.runs = list(result["runs"])
        self.interpolation = result["interpolation"]

    def frame_count(self) -> int:
        return len(self.runs) + (1 if self.interpolation is not None else 0)

    def show_frame(self, index: int) -> None:
        shown = self.runs[:index + 1]
        if not shown:
            return
        batch = np.array([r["batch_size"] for r in shown], dtype=float)
        every = [r["batch_size"] for r in self.runs]
        for plot in (self.steps_plot, self.eig_plot, self.gap_plot):
            style.batch_axis(plot, every)
        lb = np.log2(batch)
        reached = [(b, r["steps_to_target"]) for b, r in zip(batch, shown, strict=True) if r["steps_to_target"]]
        if reached:
            rb, rs = np.array(reached, dtype=float).T
            ideal = rs[0] * rb[0] / batch
            self.steps_item.setData(np.log2(rb), style.log_values(rs))
            self.ideal_item.setData(lb, style.log_values(ideal))
            both = style.log_values(np.concatenate([rs, ideal]))
            style.log_axis(self.steps_plot, "left", float(np.nanmin(both)), float(np.nanmax(both)))
        else:
            self.steps_item.setData([], [])
            self.ideal_item.setData([], [])
        self.eig_item.setData(lb, np.array([r["top_eigenvalue"] for r in shown]))
        self.gap_item.setData(lb, np.array([r["gap"] for r in shown]))
        missing = [int(b) for b, r in zip(batch, shown, strict=True) if not r["steps_to_target"]]
        last = shown[-1]
        reach = f"reached the target at step {last['steps_to_target']}" if last["steps_to_target"] else \
            "did not reach the target"
        self.set_caption(f"Batch {last['batch_size']} (lr {last['lr']:.3g}, {last['steps']} steps) {reach}; "
                         f"top eigenvalue {last['top_eigenvalue']:.1f}; train acc {last['train_acc']:.1%}, "
                         f"test acc {last['test_acc']:.1%}." + (f" Not reached: batch {', '.join(map(str, missing))}."
                                                               if missing else ""),
                         short=f"Batch {last['batch_size']}: {reach}; λmax {last['top_eigenvalue']:.1f}")
        interp = self.interpolation if index >= len(self.runs) else None
        if interp is not None:
            self.interp_train.setData(interp["alpha"], interp["train_loss"])
            self.interp_test.setData(interp["alpha"], interp["test_loss"])
            small, large = self.runs[0]["batch_size"], self.runs[-1]["batch_size"]
            self.interp_title = f"batch {small} (α=0) → {large} (α=1)"
            for line in self.ends:
                line.setVisible(True)
        else:
            self.interp_train.setData([], [])
            self.interp_test.setData([], [])
            for line in self.ends:
                line.setVisible(False)
        self.interp_plot.setTitle(self.interp_title, size=style.metrics(self.presentation)[2],
                                  color=style.ink(self.presentation))

    def data_items(self) -> list[pg.GraphicsObject]:
        items = [self.eig_item, self.gap_item]
        return items + ([self.interp_train, self.interp_test] if self.interpolation is not None else [])

    def restyle(self) -> None:
        on = self.presentation
        marker = style.metrics(on)[1]
        for i, item in enumerate((self.steps_item, self.eig_item, self.gap_item)):
            item.setPen(style.pen(style.colour(i), on))
            item.setSymbol("o")
            item.setSymbolSize(marker)
            item.setSymbolBrush(style.colour(i))
        self.ideal_item.setPen(style.pen(style.ink(on), on, dashed=True, scale=0.6))
        self.interp_train.setPen(style.pen(style.colour(0), on))
        self.interp_test.setPen(style.pen(style.colour(3), on, dashed=True))
        for line in self.ends:
            line.setPen(pg.mkPen(style.ink(on), width=1.5, style=pg.QtCore.Qt.PenStyle.DotLine))
        style.style_plot(self.steps_plot, "steps to target", on, "batch size", "steps")
        style.style_plot(self.eig_plot, "top Hessian eigenvalue", on, "batch size", "λ_max")
        style.style_plot(self.gap_plot, "train − test accuracy", on, "batch size", "gap")
        style.style_plot(self.interp_plot, self.interp_title, on, "α", "loss")
