"""The large-batch lab: each batch size's accuracy curves draw live while it trains; as it finishes, its steps to
target, sharpness (Keskar's ε-box and the top Hessian eigenvalue) and train–test gap join the plots; at the end,
the loss between the smallest- and largest-batch solutions.

Frames: one per finished batch size, one for the batch size still training (redrawn at each of its evaluations),
then the interpolation."""

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
        self.sharp_plot = self.graphics.addPlot(row=0, col=1)
        self.eig_plot = self.graphics.addPlot(row=0, col=2)
        self.curve_plot = self.graphics.addPlot(row=1, col=0)
        self.gap_plot = self.graphics.addPlot(row=1, col=1)
        self.interp_plot = self.graphics.addPlot(row=1, col=2)
        for plot in (self.steps_plot, self.sharp_plot, self.eig_plot, self.curve_plot, self.gap_plot,
                     self.interp_plot):
            plot.showGrid(x=True, y=True, alpha=0.25)
            style.shrinkable_title(plot)  # three columns: a long title must not push the right one out of view
        self.steps_plot.addLegend(offset=(10, -10))  # bottom left: the steps fall from top left to bottom right
        self.interp_plot.addLegend(offset=(-10, 10))
        self.curve_plot.addLegend(offset=(-10, -10))  # bottom right: the curves run along the top
        self.gap_plot.getAxis("left").enableAutoSIPrefix(False)  # points, never "×1000" in presentation mode
        self.steps_item = self.steps_plot.plot([], [], name="measured")
        self.ideal_item = self.steps_plot.plot([], [], name="perfect scaling")
        self.sharp_item = self.sharp_plot.plot([], [])
        self.eig_item = self.eig_plot.plot([], [])
        self.gap_item = self.gap_plot.plot([], [])
        self.curve_items: list[tuple[pg.PlotDataItem, pg.PlotDataItem]] = []  # (test, train) per batch size
        self.interp_train = self.interp_plot.plot([], [], name="train loss")
        self.interp_test = self.interp_plot.plot([], [], name="test loss")
        self.ends = [pg.InfiniteLine(pos=a, angle=90, movable=False) for a in (0.0, 1.0)]
        for line in self.ends:
            self.interp_plot.addItem(line)
            line.setVisible(False)
        self.runs: list[dict[str, Any]] = []
        self.training_now: dict[str, Any] | None = None  # the batch size training now: its curve so far
        self.interpolation: dict[str, Any] | None = None
        self.interp_title = "1-D interpolation"

    def clear_data(self) -> None:
        self.runs, self.training_now, self.interpolation = [], None, None
        for item in (self.steps_item, self.ideal_item, self.sharp_item, self.eig_item, self.gap_item,
                     self.interp_train, self.interp_test):
            item.setData([], [])
        self._curves(0)
        for plot in (self.steps_plot, self.sharp_plot, self.eig_plot):
            plot.getAxis("left").setTicks(None)  # the last run's log ticks
        for line in self.ends:
            line.setVisible(False)

    def on_frame(self, frame: dict[str, Any]) -> None:
        live_index = len(self.runs)
        if "partial" in frame:
            self.training_now = frame["partial"]
        elif "run" in frame:
            self.runs.append(frame["run"])
            self.training_now = None
        elif "interpolation" in frame:
            self.interpolation = frame["interpolation"]
            return
        if self.player.position == live_index:  # the frame on screen changed under the player: redraw it
            self.show_frame(live_index)

    def on_result(self, result: dict[str, Any]) -> None:
        self.runs = list(result["runs"])
        self.training_now = None
        self.interpolation = result["interpolation"]

    def frame_count(self) -> int:
        return len(self.runs) + (self.training_now is not None) + (self.interpolation is not None)

    # --- drawing -------------------------------------------------------------------------------
    def _curves(self, count: int) -> list[tuple[pg.PlotDataItem, pg.PlotDataItem]]:
        """Exactly ``count`` (test, train) curve pairs in the accuracy plot."""
        while len(self.curve_items) > count:
            for item in self.curve_items.pop():
                self.curve_plot.removeItem(item)
        while len(self.curve_items) < count:
            test = self.curve_plot.plot([], [])
            train = self.curve_plot.plot([], [])
            self.curve_items.append((test, train))
            self._style_curve(len(self.curve_items) - 1)
        return self.curve_items

    def _style_curve(self, i: int) -> None:
        on = self.presentation
        test, train = self.curve_items[i]
        test.setPen(style.pen(style.colour(i), on))
        train.setPen(style.pen(style.colour(i), on, dashed=True, scale=0.6))

    def _draw_curves(self, shown: list[dict[str, Any]]) -> None:
        legend = self.curve_plot.legend
        if legend is not None:
            legend.clear()
        named = {0, len(shown) - 1} if self.presentation else set(range(len(shown)))  # a projector: the two ends
        for i, ((test, train), run) in enumerate(zip(self._curves(len(shown)), shown, strict=True)):
            curve = run["curve"]
            epochs = np.asarray(curve["step"], dtype=float) / max(run.get("per_epoch", 1), 1)
            test.setData(epochs, np.asarray(curve["test_acc"], dtype=float))
            train.setData(epochs, np.asarray(curve.get("train_acc", []), dtype=float)[:len(epochs)]
                          if len(curve.get("train_acc", [])) else [])
            if legend is not None and i in named:
                legend.addItem(test, f"batch {run['batch_size']}")

    def show_frame(self, index: int) -> None:
        live = self.training_now if index == len(self.runs) and self.training_now is not None else None
        shown = self.runs[:index + 1]
        if not shown and live is None:
            return
        self._draw_curves(shown + ([live] if live is not None else []))
        every = [r["batch_size"] for r in self.runs] + ([live["batch_size"]] if live is not None else [])
        for plot in (self.steps_plot, self.sharp_plot, self.eig_plot, self.gap_plot):
            style.batch_axis(plot, every)
            if self.presentation:
                _thin_ticks(plot, every)
        self._draw_batch_plots(shown)
        if live is not None:
            self._live_caption(live)
        elif shown:
            self._run_caption(shown)
        interp = self.interpolation if index >= len(self.runs) and live is None else None
        self._draw_interpolation(interp)

    def _draw_batch_plots(self, shown: list[dict[str, Any]]) -> None:
        if not shown:
            for item in (self.steps_item, self.ideal_item, self.sharp_item, self.eig_item, self.gap_item):
                item.setData([], [])
            return
        batch = np.array([r["batch_size"] for r in shown], dtype=float)
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
        for item, plot, key in ((self.sharp_item, self.sharp_plot, "eps_sharpness"),
                                (self.eig_item, self.eig_plot, "top_eigenvalue")):
            values = style.log_values(np.array([np.nan if r.get(key) is None else r[key] for r in shown], dtype=float))
            keep = np.isfinite(values)
            item.setData(lb[keep], values[keep])
            if keep.any():
                style.log_axis(plot, "left", float(values[keep].min()), float(values[keep].max()))
        self.gap_item.setData(lb, 100 * np.array([r["gap"] for r in shown]))

    def _live_caption(self, live: dict[str, Any]) -> None:
        curve = live["curve"]
        epoch = live["step"] / max(live.get("per_epoch", 1), 1)
        train = curve["train_acc"][-1] if len(curve.get("train_acc", [])) else float("nan")
        goal = self.params.get("until_train_acc", 0.0)
        until = f" — trains until train acc {goal:.1%}" if goal else ""
        self.set_caption(f"Batch {live['batch_size']} training: epoch {epoch:.0f}, train acc {train:.1%}, "
                         f"test acc {curve['test_acc'][-1]:.1%}{until}.",
                         short=f"Batch {live['batch_size']}: epoch {epoch:.0f}, train {train:.1%}, "
                               f"test {curve['test_acc'][-1]:.1%}")

    def _run_caption(self, shown: list[dict[str, Any]]) -> None:
        last = shown[-1]
        reach = f"reached the target at step {last['steps_to_target']}" if last["steps_to_target"] else \
            "did not reach the target"
        sharp = last.get("eps_sharpness")
        sharp_text = f"ε-sharpness {sharp:.3g} %, " if sharp is not None else ""
        epochs = f", {last['epochs']:.0f} epochs" if "epochs" in last else ""
        missing = [r["batch_size"] for r in shown if not r["steps_to_target"]]
        self.set_caption(f"Batch {last['batch_size']} (lr {last['lr']:.3g}, {last['steps']} steps{epochs}) {reach}; "
                         f"{sharp_text}top eigenvalue {last['top_eigenvalue']:.3g}; train acc {last['train_acc']:.1%},"
                         f" test acc {last['test_acc']:.1%}."
                         + (f" Not reached: batch {', '.join(map(str, missing))}." if missing else ""),
                         short=f"Batch {last['batch_size']}: {sharp_text}test acc {last['test_acc']:.1%}")

    def _draw_interpolation(self, interp: dict[str, Any] | None) -> None:
        if interp is not None:
            self.interp_train.setData(interp["alpha"], interp["train_loss"])
            self.interp_test.setData(interp["alpha"], interp["test_loss"])
            small, large = self.runs[0], self.runs[-1]
            self.interp_title = f"α: batch {small['batch_size']} → {large['batch_size']}"
            for line in self.ends:
                line.setVisible(True)
            s, g = small.get("eps_sharpness"), large.get("eps_sharpness")
            ratio = f"ε-sharpness {s:.3g} → {g:.3g} % (×{g / s:.3g}), " if s and g else ""
            self.set_caption(f"Batch {small['batch_size']} → {large['batch_size']}: {ratio}top eigenvalue "
                             f"{small['top_eigenvalue']:.3g} → {large['top_eigenvalue']:.3g}; test acc "
                             f"{small['test_acc']:.1%} → {large['test_acc']:.1%}; gap {small['gap']:.1%} → "
                             f"{large['gap']:.1%}.",
                             short=f"Batch {small['batch_size']} → {large['batch_size']}: {ratio}test acc "
                                   f"{small['test_acc']:.1%} → {large['test_acc']:.1%}")
        else:
            self.interp_train.setData([], [])
            self.interp_test.setData([], [])
            for line in self.ends:
                line.setVisible(False)
        self.interp_plot.setTitle(self.interp_title, size=style.metrics(self.presentation)[2],
                                  color=style.ink(self.presentation))

    def data_items(self) -> list[pg.GraphicsObject]:
        items = [self.eig_item, self.gap_item] + [test for test, _ in self.curve_items]
        if any(r.get("eps_sharpness") is not None for r in self.runs):
            items.append(self.sharp_item)
        return items + ([self.interp_train, self.interp_test] if self.interpolation is not None else [])

    def restyle(self) -> None:
        on = self.presentation
        marker = style.metrics(on)[1]
        for i, item in enumerate((self.steps_item, self.sharp_item, self.eig_item, self.gap_item)):
            item.setPen(style.pen(style.colour(i), on))
            item.setSymbol("o")
            item.setSymbolSize(marker)
            item.setSymbolBrush(style.colour(i))
        for i in range(len(self.curve_items)):
            self._style_curve(i)
        self.ideal_item.setPen(style.pen(style.ink(on), on, dashed=True, scale=0.6))
        self.interp_train.setPen(style.pen(style.colour(0), on))
        self.interp_test.setPen(style.pen(style.colour(3), on, dashed=True))
        for line in self.ends:
            line.setPen(pg.mkPen(style.ink(on), width=1.5, style=pg.QtCore.Qt.PenStyle.DotLine))
        # presentation: large type in three columns, so short titles
        style.style_plot(self.steps_plot, "steps to target", on, "batch size", "steps")
        style.style_plot(self.sharp_plot, "ε-sharpness" if on else "ε-box sharpness (Keskar)", on, "batch size",
                         "φ %")
        style.style_plot(self.eig_plot, "λ_max" if on else "top Hessian eigenvalue", on, "batch size", "λ_max")
        style.style_plot(self.curve_plot, "accuracy" if on else "accuracy: test —, train - -", on, "epoch",
                         "accuracy")
        style.style_plot(self.gap_plot, "gap" if on else "train − test accuracy", on, "batch size", "gap (points)")
        style.style_plot(self.interp_plot, self.interp_title, on, "α", "loss")


def _thin_ticks(plot: pg.PlotItem, batches: list[int], room: float = 0.8) -> None:
    """In large type, blank a batch-size label closer than ``room`` (log₂ units) to the next labelled one, from the
    right: 256 and 400 would run together as "256400"; the largest batch keeps its label."""
    kept: list[tuple[float, str]] = []
    last = None
    for b in sorted(set(batches), reverse=True):
        pos = float(np.log2(b))
        roomy = last is None or last - pos >= room
        kept.append((pos, str(b) if roomy else ""))
        last = pos if roomy else last
    plot.getAxis("bottom").setTicks([list(reversed(kept)), []])
