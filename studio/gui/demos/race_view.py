"""The optimizer race: paths animated on the contour of a 2-D function, f − f* against the step beside.

It races live: the job streams a frame a step (``core/demos/race.py``), and the "lr ×" slider above the plots
multiplies the chosen racer's learning rate from the next step on (the job's ``set_params``). Once the race has
ended, moving the slider races again with the factors from the first step. Play/Pause pauses the race itself
while it runs; the speed sets its pace."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QSlider,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from studio.core.contracts import protocol
from studio.core.demos.race_presets import add_to_line_up, suggested_spec
from studio.core.optim.catalog import OPTIMIZERS
from studio.gui.demos import style
from studio.gui.demos.base import DemoView
from studio.gui.demos.contour import ContourMap
from studio.gui.widgets import wheel_guard

FLOOR = 1e-16  # f − f* shown on a log axis
LR_TICKS = 20  # slider ticks per decade of the lr × factor (0.1× … 10×)
SEND_DELAY_MS = 100


def last_finite(path: np.ndarray, upto: int) -> np.ndarray | None:
    """The last finite point of ``path[:upto + 1]`` (a diverged racer stops where it left)."""
    ok = np.isfinite(path[:upto + 1]).all(axis=1)
    idx = np.nonzero(ok)[0]
    return path[idx[-1]] if len(idx) else None


def clip_to_box(path: np.ndarray, bounds: tuple, margin: float = 0.05) -> np.ndarray:
    """The path with points outside the plotted box (plus a margin) set to NaN: a diverging racer leaves the
    picture instead of covering it in stripes between far-away points."""
    x0, x1, y0, y1 = bounds
    mx, my = (x1 - x0) * margin, (y1 - y0) * margin
    inside = (path[:, 0] >= x0 - mx) & (path[:, 0] <= x1 + mx) & (path[:, 1] >= y0 - my) & (path[:, 1] <= y1 + my)
    out = np.array(path, dtype=float)
    out[~inside] = np.nan
    return out


def lr_factor(position: int) -> float:
    """The lr × factor of a slider position (log scale: ±LR_TICKS is 10× either way)."""
    return float(10 ** (position / LR_TICKS))


class RaceView(DemoView):
    demo = "optimizer_race"
    rate = 25.0
    auto_rerun = True
    live = True

    def __init__(self, session: Any, parent: Any = None, recorded: bool = True) -> None:
        self.lr_scale: dict[int, float] = {}  # racer index → its lr × factor (1 unless the slider moved it)
        self.live_data: dict[str, Any] | None = None  # the race so far, while it runs
        super().__init__(session, parent, recorded)
        self.send_timer = QTimer(self)
        self.send_timer.setSingleShot(True)
        self.send_timer.setInterval(SEND_DELAY_MS)
        self.send_timer.timeout.connect(self.send_scales)
        self.player.play_button.clicked.connect(self._play_pressed)  # after the player's own toggle
        self.player.speed.currentIndexChanged.connect(self._speed_changed)

    # --- steering the running race ---------------------------------------------------------------
    def build_extra_controls(self, layout: QVBoxLayout) -> None:
        """One row: "lr ×", the racer, a slider (0.1× … 10×, log) and its factor (a slider per racer did not fit
        1024 px with five racers)."""
        self.lr_row = QWidget()
        self.lr_row.setObjectName("lr_scales")
        row = QHBoxLayout(self.lr_row)
        row.setContentsMargins(0, 0, 0, 0)
        self.lr_racer = wheel_guard.guard(QComboBox())
        self.lr_racer.setObjectName("lr_racer")
        self.lr_racer.setToolTip("The racer whose learning rate the slider multiplies")
        self.lr_racer.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.lr_racer.currentIndexChanged.connect(self._racer_picked)
        self.lr_slider = wheel_guard.guard(QSlider(Qt.Orientation.Horizontal))
        self.lr_slider.setObjectName("lr_scale")
        self.lr_slider.setRange(-LR_TICKS, LR_TICKS)
        self.lr_slider.setMinimumWidth(160)
        self.lr_slider.setToolTip("Multiply the racer's learning rate (0.1× … 10×): while they race it acts from the "
                                  "next step; after the race it races again with it from the first step")
        self.lr_slider.valueChanged.connect(self._slid)
        self.lr_value = QLabel("×1")
        self.lr_value.setMinimumWidth(50)
        for w in (QLabel("lr ×"), self.lr_racer):
            row.addWidget(w)
        row.addWidget(self.lr_slider, 1)
        row.addWidget(self.lr_value)
        self.lr_row.setEnabled(False)  # until there are racers
        layout.addWidget(self.lr_row)

    def _lr_controls(self, labels: list[str]) -> None:
        """The racers in the combo (the factors are kept when the line-up is the same)."""
        if [self.lr_racer.itemText(i) for i in range(self.lr_racer.count())] == labels:
            return
        self.lr_scale = {}
        self.lr_racer.blockSignals(True)
        self.lr_racer.clear()
        self.lr_racer.addItems(labels)
        self.lr_racer.blockSignals(False)
        self.lr_row.setEnabled(bool(labels))
        self._racer_picked(0)

    def _racer_picked(self, index: int) -> None:
        factor = self.lr_scale.get(index, 1.0)
        self.lr_slider.blockSignals(True)
        self.lr_slider.setValue(round(LR_TICKS * np.log10(factor)))
        self.lr_slider.blockSignals(False)
        self.lr_value.setText(f"×{factor:.2g}")

    def set_lr_scale(self, index: int, factor: float) -> None:
        """Pick racer ``index`` and move the slider to ``factor`` (as a person would)."""
        self.lr_racer.setCurrentIndex(index)
        self.lr_slider.setValue(round(LR_TICKS * np.log10(factor)))

    def _slid(self, position: int) -> None:
        index = self.lr_racer.currentIndex()
        if index < 0:
            return
        factor = lr_factor(position)
        self.lr_scale[index] = factor
        self.lr_value.setText(f"×{factor:.2g}")
        self.send_timer.start()

    def send_scales(self) -> None:
        """While racing: the factors to the running race; after it: race again with them."""
        if self.busy:
            self.task.set_params({"lr_scale": dict(self.lr_scale)})
            factors = ", ".join(f"{self.lr_racer.itemText(i)} {f:.2g}" for i, f in self.lr_scale.items())
            self.show_status(f"lr × {factors} from the next step")
        elif self.lr_scale:
            self.compute()

    def compute(self) -> None:
        self.live_data = None
        super().compute()
        if any(f != 1.0 for f in self.lr_scale.values()):
            self.task.set_params({"lr_scale": dict(self.lr_scale)})  # read before the first step
        self._speed_changed()

    def set_param(self, key: str, value: Any) -> None:
        super().set_param(key, value)
        if self.busy:
            self.rerun_timer.start()  # a new set-up while racing: race again

    def _play_pressed(self) -> None:
        if self.busy:
            self.task.send(protocol.RESUME if self.player.playing else protocol.PAUSE)
            if self.player.playing:
                self.player.seek(self.player.count - 1)  # the race goes on from where it is (no replay from 0)

    def _speed_changed(self, *_: Any) -> None:
        if self.busy:
            self.task.set_params({"speed": float(self.player.speed.currentData())})

    def decorate_param(self, name: str, widget: QWidget) -> QWidget:
        """The optimizers field gets an "Add" menu of the catalog's optimizers (so nobody has to know the names)."""
        if name != "optimizers":
            return widget
        self.add_menu = QMenu(self)
        self.add_menu.setToolTipsVisible(True)
        for entry in OPTIMIZERS:
            action = self.add_menu.addAction(entry.name)
            action.setToolTip(entry.description)
            action.triggered.connect(lambda _=False, n=entry.name: self.add_optimizer(n))
        self.add_menu.addSeparator()
        reset = self.add_menu.addAction("auto (the function's preset)")
        reset.setToolTip("Race the line-up chosen for the current function")
        reset.triggered.connect(lambda: self._set_optimizers("auto"))
        button = QToolButton()
        button.setObjectName("add_optimizer")
        button.setText("Add")
        button.setToolTip("Add a catalog optimizer to the race (with a learning rate that suits the function); "
                          "edit its settings in the text")
        button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        button.setMenu(self.add_menu)
        row = QWidget()
        layout = QHBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(widget, 1)
        layout.addWidget(button)
        return row

    def add_optimizer(self, name: str) -> None:
        """Append ``name`` (as :func:`suggested_spec` writes it) to the race's line-up and recompute."""
        self._set_optimizers(add_to_line_up(self.params["optimizers"], self.params["function"], name))
        self.show_status(f"Added {suggested_spec(name, self.params['function'])}.")

    def _set_optimizers(self, text: str) -> None:
        field = self.param_widgets["optimizers"]
        assert isinstance(field, QLineEdit)
        field.setText(text)
        self.set_param("optimizers", text)

    def build_plots(self) -> None:
        self.map_title = "paths on the contour"
        self.map = self.graphics.addPlot(row=0, col=0)
        self.map.setAspectLocked(True)  # the κ = 10 bowl's ellipses stay ellipses
        # the key lies below both plots, never on the contour; its swatches are the paths' pens
        self.key = pg.LegendItem(colCount=3, labelTextSize="10pt")
        self.graphics.addItem(self.key, row=1, col=0, colspan=2)
        self.contour = ContourMap(self.map)
        self.minima = pg.ScatterPlotItem(symbol="star", brush="#000000", pen="#ffffff")
        self.minima.setZValue(5)
        self.map.addItem(self.minima)
        self.curves = self.graphics.addPlot(row=0, col=1)
        self.curves.setLogMode(y=True)
        self.curves.showGrid(x=True, y=True, alpha=0.25)
        self.graphics.ci.layout.setColumnStretchFactor(0, 3)
        self.graphics.ci.layout.setColumnStretchFactor(1, 2)
        self.path_items: list[pg.PlotDataItem] = []
        self.heads: list[pg.ScatterPlotItem] = []
        self.curve_items: list[pg.PlotDataItem] = []

    def clear_data(self) -> None:
        for item in self.path_items + self.heads:
            self.map.removeItem(item)
        for item in self.curve_items:
            self.curves.removeItem(item)
        self.key.clear()
        self.path_items, self.heads, self.curve_items = [], [], []

    def on_frame(self, frame: dict[str, Any]) -> None:
        if "setup" in frame:
            picture = frame["setup"]
            n, steps = len(picture["labels"]), picture["steps"]
            paths, gaps = np.full((n, steps + 1, 2), np.nan), np.full((n, steps + 1), np.nan)
            paths[:, 0], gaps[:, 0] = picture["start"], picture["gap0"]
            self.live_data = {**picture, "paths": paths, "gaps": gaps, "count": 1}
            self.clear_data()
            self._build_items(picture)
            top = max(max(picture["gap0"]), 1e-12)
            self.curves.setRange(xRange=(0, steps), yRange=(np.log10(max(picture["tolerance"] * 1e-2, FLOOR)),
                                                            np.log10(top) + 1.0))
            self.curves.disableAutoRange()
        elif "points" in frame and self.live_data is not None:
            t = frame["step"]
            self.live_data["paths"][:, t] = frame["points"]
            self.live_data["gaps"][:, t] = frame["gaps"]
            self.live_data["count"] = t + 1

    def on_result(self, result: dict[str, Any]) -> None:
        self.live_data = None
        self.clear_data()
        self._build_items(result)
        gaps = result["gaps"]
        finite = gaps[np.isfinite(gaps)]
        hi = min(float(finite.max()), 1e6 * max(float(gaps[:, 0].max()), 1.0)) if finite.size else 1.0
        self.curves.setRange(xRange=(0, gaps.shape[1] - 1), yRange=(np.log10(max(float(finite.min()), FLOOR)) if
                             finite.size else -16, np.log10(max(hi, 1e-12)) + 0.3))
        self.curves.disableAutoRange()
        self.restyle()

    def _build_items(self, result: dict[str, Any]) -> None:
        """The contour, the minima, and a path, head and curve per racer (and its lr × slider)."""
        self._lr_controls(list(result["labels"]))
        grid = result["grid"]
        self.contour.show(grid["x"], grid["y"], grid["z"], grid["levels"])
        self.minima.setData(result["minima"][:, 0], result["minima"][:, 1], size=14)
        for i, label in enumerate(result["labels"]):
            path = pg.PlotDataItem([], [], connect="finite")
            path.setZValue(10 + i)
            head = pg.ScatterPlotItem(symbol="o")
            head.setZValue(30 + i)
            curve = pg.PlotDataItem([], [], connect="finite")  # colours as in the map's legend
            self.map.addItem(path)
            self.map.addItem(head)
            self.curves.addItem(curve)
            self.path_items.append(path)
            self.heads.append(head)
            self.curve_items.append(curve)
            self.key.addItem(path, label)
        x0, x1, y0, y1 = result["bounds"]
        self.map.setRange(xRange=(x0, x1), yRange=(y0, y1), padding=0)
        self.map.disableAutoRange()
        self.restyle()

    def frame_count(self) -> int:
        if self.result is not None:
            return int(self.result["paths"].shape[1])
        return 0 if self.live_data is None else int(self.live_data["count"])

    def show_frame(self, index: int) -> None:
        result = self.result if self.result is not None else self.live_data
        if result is None:
            return
        paths, gaps = result["paths"], result["gaps"]
        steps = np.arange(index + 1)
        box = result["bounds"]
        for i, (path_item, head, curve) in enumerate(zip(self.path_items, self.heads, self.curve_items, strict=True)):
            shown = clip_to_box(paths[i, :index + 1], box)
            path_item.setData(shown[:, 0], shown[:, 1])
            point = last_finite(shown, index)
            head.setData([point[0]], [point[1]]) if point is not None else head.setData([], [])
            curve.setData(steps, np.maximum(gaps[i, :index + 1], FLOOR))
        standings = [self._standing(result, i, index) for i in range(len(self.path_items))]
        scaled = [f"{result['labels'][i]} lr ×{f:.2g}" for i, f in sorted(self.lr_scale.items()) if f != 1.0]
        short = " · ".join([s for s in standings if "f − f*" not in s] + scaled)
        self.set_caption(f"{result['formula']} — step {index}: " + " · ".join(standings + scaled),
                         short=f"step {index}" + (f": {short}" if short else ""))

    @staticmethod
    def _standing(r: dict[str, Any], i: int, index: int) -> str:
        label = r["labels"][i]
        if "summary" not in r:  # racing live: the standing so far
            gap = r["gaps"][i, index]
            return f"{label} diverged" if not np.isfinite(gap) else f"{label} f − f* = {gap:.2g}"
        outcome = r["summary"]["optimizers"][label]
        if outcome["diverged_at"] is not None and index >= outcome["diverged_at"]:
            return f"{label} diverged"
        reached = outcome["steps_to_tol"]
        if isinstance(reached, int) and index >= reached:
            return f"{label} arrived at step {reached}"
        return f"{label} f − f* = {r['gaps'][i, index]:.2g}"

    def data_items(self) -> list[pg.GraphicsObject]:
        """The items that hold data once a frame is shown (for tests and screenshots)."""
        return [*self.path_items, *self.curve_items, *self.heads]

    def restyle(self) -> None:
        on = self.presentation
        width, marker = style.metrics(on)[:2]
        for i, (path_item, head, curve) in enumerate(zip(self.path_items, self.heads, self.curve_items, strict=True)):
            c = style.colour(i)
            path_item.setPen(style.pen(c, on))
            head.setSize(marker)
            head.setBrush(pg.mkBrush(c))
            head.setPen(pg.mkPen("#000000" if on else "#ffffff", width=1.5))
            curve.setPen(style.pen(c, on))
        self.contour.restyle(on)
        self.key.setLabelTextSize(style.metrics(on)[3])
        self.key.setLabelTextColor(style.ink(on))
        for _sample, text in self.key.items:
            text.setText(text.text, size=style.metrics(on)[3], color=style.ink(on))
        style.style_plot(self.map, self.map_title, on, "x", "y")
        style.style_plot(self.curves, "f − f* (log scale)", on, "step", "f − f*")
        self.fit_key()

    def fit_key(self) -> None:
        """As many key columns as the plots' width holds (the key wraps instead of running off the side)."""
        if not self.key.items:
            return
        widest = max(text.boundingRect().width() for _sample, text in self.key.items) + 50
        columns = max(1, min(len(self.key.items), int((self.graphics.width() - 20) // widest)))
        if columns != self.key.columnCount:
            self.key.setColumnCount(columns)

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self.fit_key()
