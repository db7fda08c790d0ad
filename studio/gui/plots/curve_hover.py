"""The read-out at the pointer (as TensorBoard and W&B have it): over a plot of the curves, a dashed line marks the
pointer's x, a dot marks each shown run's point nearest it, and a small box lists each run's value there (the
smoothed value and the raw one when smoothing is on), with the x it was logged at. The values come from the
model at full resolution (``CurveModel.readout``), not from the thinned points on screen.

The box never sits on the points it reads: it goes to the side of the pointer with room, and to the top or the
bottom of the plot, away from the dots; it is drawn half transparent and lets the mouse through."""

from __future__ import annotations

import html
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, QPointF, QRect, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLabel

from studio.gui.plots.curve_model import X_AXES, Reading, plot_spec

GAP = 14  # pixels between the pointer and the box
NAME_CHARS = 24  # a run's name in the box, at most
BOX_ALPHA = 225  # the box's background: the theme's base colour, nearly opaque


def number(value: float) -> str:
    """A value as the read-out writes it: four significant digits, thousands as 12,400."""
    if not np.isfinite(value):
        return str(value)
    if value.is_integer() and abs(value) < 1e9:
        return f"{int(value):,}"
    return f"{value:.4g}"


def short(name: str, most: int = NAME_CHARS) -> str:
    """A run's name cut to ``most`` characters ("…"): the box stays narrower than its plot."""
    return name if len(name) <= most else name[: most - 1] + "…"


def readout_html(readings: list[Reading], colours: dict[str, str], x_mode: str, lines: int) -> str:
    """The box's rich text: the x read (the first run's nearest point), then per reading a swatch in the run's
    colour, its name (the line's alone when one run is shown; both when several runs share a plot of several
    lines), its value (smoothed, then raw, when smoothed) and its own x where it differs."""
    runs = len({r.run_id for r in readings})
    head = readings[0].x
    rows = [f"<tr><td colspan='2'><i>{X_AXES[x_mode]} {number(head)}</i></td></tr>"]
    for r in readings:
        name = r.line if runs == 1 else short(r.label) + (f" · {r.line}" if lines > 1 else "")
        value = (f"<b>{number(r.smoothed)}</b> (raw {number(r.value)})" if r.smoothed is not None
                 else f"<b>{number(r.value)}</b>")
        where = f" at {number(r.x)}" if r.x != head else ""
        rows.append(f"<tr><td><span style='color:{colours.get(r.run_id, '#888')}'>■</span> {html.escape(name)}"
                    f"</td><td align='right'>&nbsp;{value}{where}</td></tr>")
    return "<table cellspacing='0' cellpadding='0'>" + "".join(rows) + "</table>"


class HoverReadout(QObject):
    """Follows the pointer over ``view``'s plots (a ``CurvesView``: its model, plots, graphics and colours);
    ``readings`` and ``key`` are what the box shows now."""

    def __init__(self, view: Any) -> None:
        super().__init__(view)
        self.view = view
        self.readings: list[Reading] = []
        self.key: str | None = None
        self.box = QLabel(view.graphics.viewport())
        self.box.setObjectName("curve_readout")
        self.box.setTextFormat(Qt.TextFormat.RichText)
        self.box.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.box.hide()
        self.line = pg.InfiniteLine(angle=90, movable=False)
        self.dots = pg.ScatterPlotItem(size=9, pxMode=True)
        self._holder: Any = None  # the view box the marks are in now
        view.graphics.scene().sigMouseMoved.connect(self.moved)
        view.graphics.viewport().installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.Leave:
            self.hide()
        return False

    def moved(self, pos: QPointF) -> None:
        """The pointer moved to scene position ``pos``: read the plot under it, or hide."""
        for key, plot in self.view.plots.items():
            box = plot.getViewBox()
            if box.sceneBoundingRect().contains(pos):
                x = box.mapSceneToView(pos).x()
                self.show_at(key, x, pos)
                return
        self.hide()

    def show_at(self, key: str, x: float, pos: QPointF) -> list[Reading]:
        """Read plot ``key`` at ``x`` (view units) and show the marks and the box there (``pos``: the pointer in
        scene coordinates). The readings (none: nothing hidden, nothing shown)."""
        readings = self.view.model.readout(key, x)
        if not readings:
            self.hide()
            return []
        plot = self.view.plots[key]
        self._hold(plot.getViewBox())
        self.key, self.readings = key, readings
        log_x, log_y = self.view.model.log_x, bool(plot.getAxis("left").logMode)
        colours = self.view.colours()
        spots = []
        for r in readings:
            y = r.smoothed if r.smoothed is not None else r.value
            if (log_y and y <= 0) or not np.isfinite(y):
                continue
            spots.append({"pos": (np.log10(r.x) if log_x else r.x, np.log10(y) if log_y else y),
                          "brush": pg.mkBrush(colours.get(r.run_id, "#888")), "pen": pg.mkPen(self._ink(), width=1)})
        self.dots.setData(spots)
        self.line.setPos(x)
        self.line.setPen(pg.mkPen(self._ink(), width=1, style=Qt.PenStyle.DashLine))
        lines = len(self.view.model.plotted(key))
        self.box.setText(readout_html(readings, colours, self.view.model.x_mode, lines))
        self.box.setToolTip(plot_spec(key)[0])
        self._style_box()
        self.box.adjustSize()
        self._place(plot.getViewBox(), pos, [s["pos"] for s in spots])
        self.box.show()
        self.box.raise_()
        return readings

    def hide(self) -> None:
        """No read-out: the box and the marks go."""
        self.box.hide()
        self.readings, self.key = [], None
        self._hold(None)

    # --- where and how ---------------------------------------------------------------------------
    def _hold(self, view_box: Any) -> None:
        """Put the dashed line and the dots in ``view_box`` (None: in no plot)."""
        if self._holder is view_box:
            return
        if self._holder is not None:
            for item in (self.line, self.dots):
                try:
                    self._holder.removeItem(item)
                except (RuntimeError, ValueError):  # the plot went with a selection or a choice of metrics
                    pass
        self._holder = view_box
        if view_box is not None:
            for item in (self.line, self.dots):
                view_box.addItem(item, ignoreBounds=True)  # marks, not data: no range follows them
            self.line.setZValue(50)
            self.dots.setZValue(51)

    def _place(self, view_box: Any, pos: QPointF, points: list[tuple[float, float]]) -> None:
        """The box beside the pointer (right or left of it), at the top or the bottom of the plot: of these four
        places the one that covers fewest of the curves' points on screen and none of the dots read."""
        graphics = self.view.graphics
        area = graphics.mapFromScene(view_box.sceneBoundingRect()).boundingRect()
        pointer = graphics.mapFromScene(pos)
        width, height = self.box.width(), self.box.height()
        lefts = [pointer.x() + GAP, pointer.x() - GAP - width]
        tops = [area.top() + 4, area.bottom() - height - 4]
        curves = self._curve_points(view_box)
        dots = np.array(points, dtype=float).reshape(-1, 2)
        best: tuple[float, QRect] | None = None
        for top in tops:
            for left in lefts:
                left = max(area.left() + 2, min(left, area.right() - width - 2))
                rect = QRect(int(left), int(max(area.top() + 2, top)), width, height)
                shown = view_box.mapSceneToView(graphics.mapToScene(rect)).boundingRect()
                score = self._inside(curves, shown) + 1000 * self._inside(dots, shown)
                if best is None or score < best[0]:
                    best = (score, rect)
        assert best is not None
        self.box.setGeometry(best[1])

    def _curve_points(self, view_box: Any) -> np.ndarray:
        """The points of the plot's lines as drawn (view coordinates: log10 on a log axis), N × 2."""
        parts = []
        for item in view_box.addedItems:
            if isinstance(item, pg.PlotDataItem) and item.isVisible():
                x, y = item.getData()
                if x is not None and len(x):
                    parts.append(np.column_stack([x, y]))
        return np.concatenate(parts) if parts else np.empty((0, 2))

    @staticmethod
    def _inside(points: np.ndarray, rect: Any) -> int:
        if not len(points):
            return 0
        x, y = points[:, 0], points[:, 1]
        return int(np.count_nonzero((x >= rect.left()) & (x <= rect.right()) & (y >= rect.top())
                                    & (y <= rect.bottom())))

    def _ink(self) -> QColor:
        return self.view.palette().color(self.view.foregroundRole())

    def _style_box(self) -> None:
        base = QColor(self.view.palette().base().color())
        base.setAlpha(BOX_ALPHA)
        ink = self._ink()
        self.box.setStyleSheet(f"QLabel#curve_readout {{ background: rgba({base.red()}, {base.green()}, "
                               f"{base.blue()}, {base.alpha()}); color: {ink.name()}; border: 1px solid "
                               f"{ink.name()}; border-radius: 3px; padding: 2px 4px; }}")
