"""The classification playground: the decision boundary as a heat map under the points, live while the
MLP trains, and the train/test loss curves beside it.

It trains live (TensorFlow Playground's way): the job runs until stopped, Play/Pause, Step and Reset steer it,
and a change in the form reaches the running training (debounced) — the job's ``set_params``; the child applies
it between two frames and says what it did (``core/demos/playground.Playground.apply``), shown in the status line
and as a mark on the loss curves. A seed change starts again from new weights.

Your own points (``point_editor.py``): drawn in the picture or read from a CSV, they become the ``custom`` point
set, and the running training follows each edit.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt, QTimer

from studio.core.contracts import protocol
from studio.core.demos import points
from studio.core.demos.catalog import PLAYGROUND_IDLE, PLAYGROUND_RESTART
from studio.core.errors import StudioError
from studio.gui.demos import style
from studio.gui.demos.base import DemoView
from studio.gui.demos.point_editor import PointEditor
from studio.gui.plots.palette import OKABE_ITO

# P(class 1): orange for class 0, white at ½, blue for class 1 (the points' colours, lighter)
BOUNDARY = pg.ColorMap([0.0, 0.5, 1.0], [(245, 190, 110), (255, 255, 255), (120, 175, 225)])
CLASS_COLOURS = (OKABE_ITO[1], OKABE_ITO[0])
SEND_DELAY_MS = 150  # a change is sent once the form has been still this long (typing, a spin box held down)
MARKS = 50  # change marks on the loss curves, at most
HIDDEN = (*PLAYGROUND_IDLE, "points")  # form rows never shown: your points are edited in the picture
CUSTOM = "custom"


class PlaygroundView(DemoView):
    demo = "playground"
    rate = 12.0
    live = True
    endless = True

    def __init__(self, session: Any, parent: Any = None, recorded: bool = True) -> None:
        super().__init__(session, parent, recorded)
        self.pending: dict[str, Any] = {}  # changes not sent yet
        self.send_timer = QTimer(self)
        self.send_timer.setSingleShot(True)
        self.send_timer.setInterval(SEND_DELAY_MS)
        self.send_timer.timeout.connect(self.send_changes)
        self.player.set_live(True)
        self.player.run_toggled.connect(self._run_toggled)
        self.player.step_requested.connect(self._step)
        self.player.reset_requested.connect(self.reset_training)
        self.compute_button.setText("Train")
        self.compute_button.setToolTip("Train from new random weights; change any setting while it learns")
        self.badge.button = "Train"
        if self.recording is not None:
            self.badge.show_recording(self.recording)
        self.stop_button.setToolTip("End the training (the last picture stays)")
        # live training has no end (its bar stays empty; the player's label says the step), and the child's one
        # "starting" report would hide the status line: progress leaves the line to the view
        idle = "Press Train or Play: it learns until you pause it; change settings while it learns."
        self.panel.words = replace(self.panel.words, idle=idle, progress=None)
        self.status.setText(idle)
        self._hide_idle_rows()

    # --- steering the running training ---------------------------------------------------------
    def set_param(self, key: str, value: Any) -> None:
        before = self.params.get(key)
        super().set_param(key, value)
        if key == "dataset" and self.params["dataset"] != CUSTOM:
            self.editor.set_editing(False)
        if key in ("dataset", "points", "train_ratio", "seed"):
            self.restyle()
        if not self.busy or self.params.get(key) == before:
            return
        if key in PLAYGROUND_RESTART:
            self.rerun_timer.start()  # new weights: the debounced restart
        elif key in ("dataset", "points") and self.own_points_problem():
            self.show_status(self.own_points_problem())  # kept here until there are points of both classes
        elif key not in PLAYGROUND_IDLE:
            if key in ("dataset", "points"):
                self.pending.update(dataset=self.params["dataset"], points=self.params["points"])
            else:
                self.pending[key] = self.params[key]
            self.send_timer.start()

    def set_params(self, values: dict[str, Any]) -> None:
        super().set_params(values)
        if "points" in values:
            self._editor_from_params()
        self.restyle()

    # --- your own points ---------------------------------------------------------------------------------------
    def own_points_problem(self) -> str:
        """Why your points cannot train yet (one sentence), or "" when they can (or the set is not yours)."""
        if self.params.get("dataset") != CUSTOM:
            return ""
        xy, classes = self.editor.xy, self.editor.classes
        if not len(xy):
            return "Draw points in the picture (Shift+click for the other class), or import a CSV of x, y, class."
        if len(set(classes.tolist())) < 2:
            other = "blue (Shift+click)" if int(classes[0]) == 0 else "orange (click)"
            return f"Add a point of the other class, {other}: the training needs both classes."
        return ""

    def _editor_from_params(self) -> None:
        try:
            xy, classes = points.parse_points(self.params.get("points", ""), two_classes=False)
        except (StudioError, ValueError):
            xy, classes = np.zeros((0, 2)), np.zeros(0, dtype=np.int64)
        self.editor.set_points(xy, classes)

    def _drawing_toggled(self, on: bool) -> None:
        """Draw points switched on over a point set of the catalog: its points become yours, to change."""
        if on and self.params.get("dataset") != CUSTOM:
            s = self.setup
            if s is not None:
                self.editor.set_points(np.vstack([s["x_train"], s["x_test"]]), np.concatenate([s["y_train"],
                                                                                              s["y_test"]]))
            self._own_points(self.editor.xy, self.editor.classes)

    def _own_points(self, xy: np.ndarray, classes: np.ndarray) -> None:
        """An edit: your points are the point set now, drawn at once and sent to a running training."""
        text = points.points_text(xy, classes) if len(xy) else ""
        self.set_params({"dataset": CUSTOM, "points": text})
        problem = self.own_points_problem()
        if problem:
            self.show_status(problem)
        elif self.busy:
            self.pending.update(dataset=CUSTOM, points=text)
            self.send_timer.start()
        else:
            self.show_status(f"Your {len(xy)} points: press Train to learn them (changes follow while it trains).")

    def snapshot(self) -> dict[str, Any] | None:
        """A finished run's result, or the live training so far (its frames keep only the newest picture)."""
        if self.result is not None:
            return self.result
        if self.setup is None or not self.frames:
            return None
        return {**self.setup, "frames": [dict(f) for f in self.frames]}

    def _dragging(self, xy: np.ndarray, classes: np.ndarray) -> None:
        self._draw_own(xy, classes)

    def send_changes(self) -> None:
        """Send the changes made since the last send to the running training (one message)."""
        if self.pending and self.busy:
            self.task.set_params(dict(self.pending))
            self.show_status("Sent: " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in self.pending.items()))
        self.pending = {}

    def compute(self) -> None:
        problem = self.own_points_problem()
        if problem:  # nothing to learn yet: say what is missing, start nothing
            self.show_status(problem, error=True)
            self.player.set_running(False)
            return
        self.pending = {}
        self.send_timer.stop()
        super().compute()
        self.show_status("Training: change any setting and it acts on this training (Pause, Step, Reset below).")

    def reset_training(self) -> None:
        """Start again from new weights; a paused playground stays paused (at step 0)."""
        running = self.player.playing
        self.compute()
        if not running:
            self.player.set_running(False)
            self.task.send(protocol.PAUSE)

    def _run_toggled(self, run: bool) -> None:
        if not self.busy:
            if run:
                self.compute()
            return
        self.task.send(protocol.RESUME if run else protocol.PAUSE)

    def _step(self) -> None:
        if not self.busy:
            self.compute()
            self.player.set_running(False)
        self.task.send(protocol.PAUSE)
        self.task.send(protocol.STEP)

    def hideEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        """Out of sight (another demo, another tab): pause, so a forgotten playground does not keep a core busy."""
        super().hideEvent(event)
        if self.busy and self.player.playing:
            self.player.pause()  # sends Pause; Play resumes where it was

    def _hide_idle_rows(self) -> None:
        for row, param in enumerate(self.entry.params):
            if param.name in HIDDEN:
                self.form.setRowVisible(row, False)

    def build_extra_controls(self, layout: Any) -> None:
        """Draw points, Clear, Import CSV…, Paste CSV above the picture (``point_editor.py``)."""
        self.editor = PointEditor(self.map, self)
        self.editor.edited.connect(self._own_points)
        self.editor.dragging.connect(self._dragging)
        self.editor.refused.connect(lambda text: self.show_status(text, error=True))
        self.editor.draw_button.toggled.connect(self._drawing_toggled)
        layout.addWidget(self.editor.bar)

    def set_presentation(self, on: bool) -> None:
        super().set_presentation(on)
        self._hide_idle_rows()

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
        self.marks: list[pg.InfiniteLine] = []  # where a live change reached the training

    def clear_data(self) -> None:
        for mark in self.marks:
            self.curves.removeItem(mark)
        self.frames, self.setup, self.marks = [], None, []
        self.image.clear()
        for item in (self.train_points, self.test_points):
            item.setData([], [])
        self.train_curve.setData([], [])
        self.test_curve.setData([], [])

    def on_frame(self, frame: dict[str, Any]) -> None:
        if "setup" in frame:
            self.setup = frame["setup"]
            self._draw_points()
        elif "paused" in frame:
            self.player.set_running(not frame["paused"])
            self.show_status(f"Paused at step {frame['step']}: change settings, Step, or Play to go on."
                             if frame["paused"] else "Training…")
        elif "p" in frame:
            if self.frames and self.live:
                self.frames[-1].pop("p", None)  # live it runs for hours: only the newest picture is kept
            self.frames.append(frame)
            if frame.get("notes"):
                self._mark(frame)
            self.player.live_text = f"step {frame['step']:,}"

    def _mark(self, frame: dict[str, Any]) -> None:
        """A change reached the training at this step: say what it did, and mark the loss curves."""
        at = frame.get("changed_at", frame["step"])
        self.show_status(f"Step {at}: " + "; ".join(frame["notes"]))
        line = pg.InfiniteLine(pos=at, angle=90, movable=False,
                               pen=pg.mkPen(style.ink(self.presentation), width=1, style=Qt.PenStyle.DotLine))
        line.setToolTip("; ".join(frame["notes"]))
        self.curves.addItem(line)
        self.marks.append(line)
        if len(self.marks) > MARKS:
            self.curves.removeItem(self.marks.pop(0))

    def on_result(self, result: dict[str, Any]) -> None:
        if self.setup is None:
            self.setup = {k: result[k] for k in ("x_train", "y_train", "x_test", "y_test", "box")}
            self._draw_points()
        self.frames = list(result["frames"])

    def _draw_points(self) -> None:
        s = self.setup
        if s is None:  # never: called once the setup has come
            return
        if not self.editor.item.editing:  # while you draw, the picture stays put under the mouse
            x0, x1, y0, y1 = s["box"]
            self.map.setRange(xRange=(x0, x1), yRange=(y0, y1), padding=0)
        self.restyle()

    def _draw_own(self, xy: np.ndarray, classes: np.ndarray) -> None:
        """Your points in one editable item: filled when they train, rings when they test."""
        on = self.presentation
        marker = style.metrics(on)[1] * 0.8
        test = points.test_mask(len(classes), float(self.params["train_ratio"]), int(self.params["seed"]))
        brushes = [pg.mkBrush(0, 0, 0, 0) if t else pg.mkBrush(CLASS_COLOURS[int(c)]) for c, t in zip(classes, test,
                                                                                                    strict=True)]
        pens = [pg.mkPen(CLASS_COLOURS[int(c)], width=2.5 if on else 1.5) if t else
                pg.mkPen("#000000" if on else "#ffffff", width=1) for c, t in zip(classes, test, strict=True)]
        self.editor.item.setData(xy[:, 0] if len(xy) else [], xy[:, 1] if len(xy) else [], brush=brushes, pen=pens,
                                 size=marker)
        if len(xy) and self.setup is None and not self.editor.item.editing:
            x0, x1, y0, y1 = points.grid_box(xy)
            self.map.setRange(xRange=(x0, x1), yRange=(y0, y1), padding=0)

    def frame_count(self) -> int:
        return len(self.frames)

    def show_frame(self, index: int) -> None:
        if not self.frames or self.setup is None:
            return
        frame = self.frames[min(index, len(self.frames) - 1)]
        p = frame.get("p")
        if p is None:  # live: an older frame's picture was let go; the newest one stands in
            p = self.frames[-1]["p"]
        x0, x1, y0, y1 = self.setup["box"]
        self.image.setImage(p.T, levels=(0.0, 1.0))
        n = p.shape[0]
        dx, dy = (x1 - x0) / (n - 1), (y1 - y0) / (n - 1)
        self.image.setRect(QRectF(x0 - dx / 2, y0 - dy / 2, dx * n, dy * n))
        shown = self.frames[:index + 1]
        steps = np.array([f["step"] for f in shown], dtype=float)
        self.train_curve.setData(steps, np.array([f["train_loss"] for f in shown]))
        self.test_curve.setData(steps, np.array([f["test_loss"] for f in shown]))
        test, test_short = (f"{frame['test_acc']:.1%}", f"{frame['test_acc']:.0%}") if np.isfinite(
            frame["test_acc"]) else ("— (too few points to test)", "—")
        self.set_caption(f"Step {frame['step']}: train accuracy {frame['train_acc']:.1%}, test accuracy {test} "
                         "(filled points: train, rings: test)",
                         short=f"Step {frame['step']}: train {frame['train_acc']:.0%}, test {test_short}")

    def data_items(self) -> list[pg.GraphicsObject]:
        shown = [self.editor.item] if self.params.get("dataset") == CUSTOM else [self.train_points, self.test_points]
        return [*shown, self.train_curve, self.test_curve]

    def restyle(self) -> None:
        on = self.presentation
        marker = style.metrics(on)[1]
        own = self.params.get("dataset") == CUSTOM
        if own:
            for item in (self.train_points, self.test_points):
                item.setData([], [])
            self._draw_own(self.editor.xy, self.editor.classes)
        else:
            self.editor.item.setData([], [])
        if self.setup is not None and not own:
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
