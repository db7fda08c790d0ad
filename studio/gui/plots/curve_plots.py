"""The curves' pyqtgraph side: ``PlotGrid`` holds a plot per group of metrics and a line per run and metric (with
the faint raw line behind a smoothed one) in the normal or presentation style, makes a big selection's lines over
several turns of the event loop, and hands the model's prepared arrays to them.

The plots sit two to a row (an odd last one spans both columns), each at least ``Style.min_height`` tall: when the
view is shorter the grid grows taller than it and scrolls (``CurvesView.plot_scroll``) instead of squeezing the
plots to unreadable strips (issue 33.6: five plots of ~60 px at 1024×768). The axes' labels are cut to their axis
(``LogAxis``), and a range fitted to the data leaves room for a dot at its edge."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtGui import QColor, QFont

from studio.gui.plots.axes import plain_numbers
from studio.gui.plots.curve_bands import BandLayer
from studio.gui.plots.curve_data import Drawn
from studio.gui.plots.curve_model import SMOOTHED, X_AXES, CurveModel, PlotView, Range, bounds, plot_spec, spread
from studio.gui.plots.log_axis import LogAxis
from studio.gui.session.theme import curve_colour

RAW_ALPHA = 60  # the unsmoothed curve behind a smoothed one
RUNS_PER_TURN = 6  # a big selection makes its runs' lines this many runs per event-loop turn (~1 ms a line)


@dataclass(frozen=True)
class Style:
    """Line width, symbol size, the title, axis label, tick and key font sizes, and a plot's least height."""

    line: int
    symbol: int
    title: str
    label: str
    tick: int
    key: int
    min_height: int


# A plot's least height: its title line and its x axis with ticks and label take ~65 px at 9–11 pt, and the data
# need ~95 px more for four labelled y ticks and a y label of ~14 characters uncut ("learning rate"); presentation
# fonts need about 1.6× that.
MIN_PLOT_HEIGHT = 160
STYLES = {False: Style(2, 6, "11pt", "9pt", 9, 9, MIN_PLOT_HEIGHT),  # presentation?
          True: Style(4, 11, "20pt", "16pt", 15, 15, 260)}
COLUMNS = 2  # plots side by side
WHOLE_AXES = frozenset({X_AXES["step"], X_AXES["samples"]})  # x axes that count whole things: integer ticks
EDGE_PX = 13  # room kept between a fitted range's lowest or highest point and the plot's edge: a dot's radius and 8 px
Items = dict[tuple[str, str], pg.PlotDataItem]


def new_plot(graphics: pg.GraphicsLayoutWidget, key: str, place: tuple[int, int, int], x_label: str, log_x: bool,
             style: Style, on_x_range: Callable[[], None]) -> pg.PlotItem:
    """Plot ``key`` at ``place`` (row, column, column span) of ``graphics``, with log axes that label well."""
    row, col, colspan = place
    title, y_label, _ = plot_spec(key)
    axes = {"left": LogAxis("left"), "bottom": LogAxis("bottom")}
    plot = graphics.addPlot(row=row, col=col, colspan=colspan, title=title, axisItems=axes, viewBox=CurveViewBox())
    plot.showGrid(x=True, y=True, alpha=0.25)
    plot.setLabel("bottom", x_label)
    plot.setLabel("left", y_label)
    for name in ("left", "bottom"):
        plain_numbers(plot.getAxis(name))  # "accuracy (x0.001)" with ticks 500…800 misleads
    plot.setDownsampling(auto=False)  # the curves arrive decimated per pixel column (curve_data.prepare)
    plot.getViewBox().sigXRangeChanged.connect(lambda *_: on_x_range())
    if key == "lr":
        plot.setLogMode(y=True)  # rates span decades (warm-up, decay)
    plot.setLogMode(x=log_x)
    axes["bottom"].set_whole(x_label in WHOLE_AXES)
    style_plot(plot, key, style)
    return plot


def style_plot(plot: pg.PlotItem, key: str, style: Style) -> None:
    """Title, axis label and tick font sizes."""
    plot.setTitle(plot_spec(key)[0], size=style.title)
    for name in ("bottom", "left"):
        axis = plot.getAxis(name)
        axis.labelStyle["font-size"] = style.label
        axis.setLabel(axis.labelText, **axis.labelStyle)
        font = QFont()
        font.setPointSize(style.tick)
        axis.setTickFont(font)


def add_lines(plot: pg.PlotItem, metrics: list[tuple[str, str, bool, bool]], run_id: str, colour: str, width: int,
              style: Style, items: Items, raw_items: Items) -> None:
    """A run's lines for ``metrics`` (a plot's chosen ones): solid train, dashed validation with dots per epoch, a
    faint raw line (hidden until smoothing is on) behind each smoothed one."""
    for name, _line, dashed, symbols in metrics:
        pen = pg.mkPen(colour, width=width, style=Qt.PenStyle.DashLine if dashed else Qt.PenStyle.SolidLine)
        kwargs = ({"symbol": "o", "symbolSize": style.symbol, "symbolBrush": colour, "symbolPen": colour}
                  if symbols else {})
        if name in SMOOTHED:
            faint = QColor(colour)
            faint.setAlpha(RAW_ALPHA)
            raw = plot.plot([], [], pen=pg.mkPen(faint, width=max(1, width // 2)), dynamicRangeLimit=None)
            raw.setZValue(-1)
            raw.setVisible(False)
            raw_items[(run_id, name)] = raw
        item = plot.plot([], [], pen=pen, dynamicRangeLimit=None, **kwargs)
        item.setProperty("symbols", bool(symbols))
        items[(run_id, name)] = item


def restyle_lines(items: Items, width: int, style: Style) -> None:
    """Line widths and symbol sizes after the style or the number of runs changed."""
    for item in items.values():
        if item.opts["pen"].widthF() != width:
            pen = pg.mkPen(item.opts["pen"])
            pen.setWidthF(width)
            item.setPen(pen)
        if item.opts.get("symbol") and item.opts.get("symbolSize") != style.symbol:
            item.setSymbolSize(style.symbol)


def draw(item: pg.PlotDataItem, faint: pg.PlotDataItem | None, d: Drawn, smoothing: bool) -> None:
    """Hand a prepared curve to its line (a single point becomes a dot) and its raw curve to the faint line."""
    item.setData(d.x, d.y)
    if not item.property("symbols"):  # a single point is a dot, not an invisible line
        item.setSymbol("o" if len(d.x) == 1 else None)
        if len(d.x) == 1:
            item.setSymbolBrush(item.opts["pen"].color())
    if faint is not None:
        faint.setVisible(smoothing)
        if not smoothing:  # hidden: fed when smoothing is turned on (every curve is prepared again then)
            return
        if d.raw_x is not None:
            faint.setData(d.raw_x, d.raw_y)
        else:
            faint.setData(d.x, d.y)


def shown_data(plot: pg.PlotItem) -> list[tuple[np.ndarray, np.ndarray]]:
    """The points of the plot's visible lines, as drawn."""
    return [(item.xData, item.yData) for item in plot.listDataItems()
            if item.xData is not None and len(item.xData) and item.isVisible()]


class CurveViewBox(pg.ViewBox):
    """A plot's data area whose fitted y range keeps its lowest and highest points ``edge_px`` pixels inside, so a
    point at an extreme (a single point, a dot per epoch) is drawn whole, clear of the x axis and its tick labels
    (pyqtgraph's own padding left a dot ~8 px from the axis of a 100 px plot). The x range keeps pyqtgraph's.

    While it follows its data (auto range) and they grow past the range, the range grows ``HEADROOM`` of its span
    further on that side, and then stays while new points fall inside it: live points then move no axis, so a live
    draw repaints no axis and asks for no second paint (issue 40: a live draw of 50 runs 39–68 → ~30 ms). A range
    fitted on purpose (``fit``: a selection, an x axis, a zoom out) is tight again."""

    edge_px = EDGE_PX
    HEADROOM = 0.1
    _auto = False  # inside updateAutoRange: setRange then keeps or grows the range

    def suggestPadding(self, axis: int) -> float:  # noqa: N802 - pyqtgraph's name
        padding = super().suggestPadding(axis)
        height = self.height()
        if axis != 1 or height <= 4 * self.edge_px:
            return padding
        return max(padding, min(0.2, self.edge_px / (height - 2 * self.edge_px)))

    def updateAutoRange(self) -> None:  # noqa: N802 - pyqtgraph's name
        self._auto = True
        try:
            super().updateAutoRange()
        finally:
            self._auto = False

    def setRange(self, rect: object = None, xRange: object = None, yRange: object = None,  # noqa: N802, N803
                 padding: float | None = None, update: bool = True, disableAutoRange: bool = True) -> None:
        if self._auto:
            xRange, yRange = (self._roomy(ax, r) for ax, r in ((0, xRange), (1, yRange)))
        super().setRange(rect, xRange, yRange, padding, update, disableAutoRange)

    def _roomy(self, axis: int, wanted: object) -> object:
        """The auto range's ``wanted`` span on ``axis`` (the data's, padded), kept at the shown one while the data
        fit inside it with at least half their padding (and fill most of it), grown with headroom on the side the
        data went past it."""
        if wanted is None:
            return None
        lo, hi = (float(v) for v in wanted)  # type: ignore[attr-defined]
        now_lo, now_hi = self.viewRange()[axis]
        span = now_hi - now_lo
        if not (span > 0 and np.isfinite(span)) or hi - lo < (1 - 2 * self.HEADROOM) * span:
            return wanted  # a first range, or the data shrank (a run hidden): fit them
        pad = self.suggestPadding(axis)
        margin = pad * (hi - lo) / (1 + 2 * pad) / 2  # half the padding pyqtgraph put around the data
        if lo + margin >= now_lo and hi - margin <= now_hi:
            return [now_lo, now_hi]  # new points inside: nothing moves
        room = self.HEADROOM * (hi - lo)  # on a side the data themselves went past; elsewhere their padding
        new_lo = lo - room if lo + 2 * margin < now_lo else min(lo, now_lo)
        return [new_lo, hi + room if hi - 2 * margin > now_hi else max(hi, now_hi)]


def fit(plot: pg.PlotItem, x: Range, y: Range) -> None:
    """Show this range (never an empty one; padded as its view box pads), then follow new points. The auto range
    is computed now, not at the next paint: there it moved the range by the lines' pixel padding, and the axes,
    drawn again, asked for a second paint (~40 ms at 50 runs)."""
    plot.setRange(xRange=spread(*x), yRange=spread(*y))
    plot.enableAutoRange()
    box = plot.getViewBox()
    box.updateAutoRange()
    box.updateMatrix()  # and moved there now: a move inside the paint marked the scene dirty, a second paint


class Graphics(pg.GraphicsLayoutWidget):
    """pyqtgraph's layout widget that says when it has painted (``painted``: the live pace times a draw by it)."""

    def __init__(self) -> None:
        super().__init__()
        self.painted: Callable[[], None] | None = None

    def paintEvent(self, event: object) -> None:  # noqa: N802 - Qt's name
        super().paintEvent(event)
        if self.painted is not None:
            self.painted()


class PlotGrid:
    """The model's plots in a pyqtgraph layout (``graphics``) and the shown runs' lines in them (``items``, the
    faint raw lines ``raw_items``), by (run, metric)."""

    def __init__(self, model: CurveModel, parent: QObject, on_x_range: Callable[[], None]) -> None:
        self.model = model
        self.graphics = Graphics()
        self.plots: dict[str, pg.PlotItem] = {}
        self.items: Items = {}
        self.raw_items: Items = {}
        self.bands = BandLayer()  # seed groups drawn as their mean and a band
        self.style = STYLES[False]
        self._on_x_range = on_x_range
        self._places: dict[str, tuple[int, int, int]] = {}  # plot → (row, column, column span) in the grid
        self._made: set[str] = set()  # shown runs whose lines exist
        self._deferred: list[str] = []  # shown runs whose lines are still to be made
        self._timer = QTimer(parent)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._make_some)
        self.sync()

    def sync(self) -> None:
        """The model's plots: those no longer chosen go, new ones come (with the lines of every run made so far),
        and every plot takes its place in the grid."""
        for key in [k for k in self.plots if k not in self.model.plots]:
            self.graphics.removeItem(self.plots.pop(key))
            self._places.pop(key, None)
        places = {key: self.place(i) for i, key in enumerate(self.model.plots)}
        moving = [k for k in self.plots if self._places.get(k) != places[k]]  # a plot before them went or came
        for key in moving:  # out of the grid first: a cell is free only once its plot has left it
            self.graphics.removeItem(self.plots[key])
        for key in moving:
            row, col, span = places[key]
            self.graphics.addItem(self.plots[key], row, col, 1, span)
            self._places[key] = places[key]
        for key, place in places.items():
            if key in self.plots:
                continue
            self.plots[key] = new_plot(self.graphics, key, place, X_AXES[self.model.x_mode], self.model.log_x,
                                       self.style, self._on_x_range)
            self._places[key] = place
            for run_id in self.model.order:
                if run_id in self._made:
                    self._add_lines(run_id, [key])
        self.size_rows()

    def place(self, i: int) -> tuple[int, int, int]:
        """Where the i-th plot goes: (row, column, column span); an odd last one spans the row."""
        n = len(self.model.plots)
        last_alone = n % COLUMNS and i == n - 1
        return i // COLUMNS, 0 if last_alone else i % COLUMNS, COLUMNS if last_alone else 1

    @property
    def rows(self) -> int:
        return -(-len(self.model.plots) // COLUMNS)

    def size_rows(self) -> None:
        """Every row of plots at least the style's least height; the grid's least height follows, so a view
        shorter than the plots need scrolls them instead of squeezing them."""
        layout = self.graphics.ci.layout
        for row in range(max(self.rows, layout.rowCount())):
            layout.setRowMinimumHeight(row, self.style.min_height if row < self.rows else 0)
            layout.setRowStretchFactor(row, 1 if row < self.rows else 0)
        _left, top, _right, bottom = layout.getContentsMargins()
        spacing = max(0.0, layout.verticalSpacing())
        self.graphics.setMinimumHeight(int(self.rows * (self.style.min_height + spacing) + top + bottom + 4))

    def min_height(self) -> int:
        """The least height of the grid of plots (the scroll area's content)."""
        return self.graphics.minimumHeight()

    def reset(self, defer_after: int | None = None) -> None:
        """No line left; the model's plots, and lines for its runs (those after ``defer_after`` in later turns of
        the event loop: a big selection spreads that work instead of stalling the window)."""
        self._made.clear()
        self._deferred.clear()
        self.items.clear()
        self.raw_items.clear()
        self.bands.clear()
        for plot in self.plots.values():
            plot.clear()
        self.sync()
        for i, run_id in enumerate(self.model.order):
            if defer_after is not None and i >= defer_after:
                self._deferred.append(run_id)
            else:
                self.make(run_id)
        if self._deferred:
            self._timer.start()

    def make(self, run_id: str) -> None:
        """A run's lines in every plot."""
        self._made.add(run_id)
        self._add_lines(run_id, list(self.plots))

    def flush(self) -> None:
        """Every deferred run's lines now (curves are about to be drawn)."""
        for run_id in self._deferred:
            self.make(run_id)
        self._deferred.clear()

    def _make_some(self) -> None:
        """The timer's turn: lines for the next ``RUNS_PER_TURN`` deferred runs."""
        for run_id in self._deferred[:RUNS_PER_TURN]:
            self.make(run_id)
        del self._deferred[:RUNS_PER_TURN]
        if self._deferred:
            self._timer.start()

    def _add_lines(self, run_id: str, keys: list[str]) -> None:
        colour = curve_colour(self.model.colours()[run_id])
        for key in keys:
            add_lines(self.plots[key], self.model.plotted(key), run_id, colour, self.line_width(), self.style,
                      self.items, self.raw_items)

    def line_width(self) -> int:
        """The style's line width, halved when many runs are shown (``CurveModel.thin_lines``)."""
        return max(1, self.style.line // 2) if self.model.thin_lines else self.style.line

    def set_style(self, style: Style) -> None:
        """Restyle every plot and line."""
        self.style = style
        for key, plot in self.plots.items():
            style_plot(plot, key, style)
        self.restyle_lines()
        self.size_rows()

    def restyle_lines(self) -> None:
        restyle_lines(self.items, self.line_width(), self.style)

    def label_x(self) -> None:
        """The model's x mode under every plot."""
        for key, plot in self.plots.items():
            plot.setLabel("bottom", X_AXES[self.model.x_mode])
            plot.getAxis("bottom").set_whole(X_AXES[self.model.x_mode] in WHOLE_AXES)
            style_plot(plot, key, self.style)

    def log_x(self) -> None:
        """The model's log x on every plot."""
        for plot in self.plots.values():
            plot.setLogMode(x=self.model.log_x)

    def draw(self, run_id: str, name: str, d: Drawn) -> None:
        """A prepared curve onto its line, if the run is still shown."""
        item = self.items.get((run_id, name))
        if item is not None and self.model.keep(run_id, name, d) and run_id not in self.model.grouped():
            draw(item, self.raw_items.get((run_id, name)), d, self.model.smoothing > 0)  # a grouped run: its band

    def draw_bands(self) -> None:
        """Each seed group's mean and band (its runs' own lines hidden), at the columns the curves were drawn at;
        the mean at the style's full width (it stands for several runs)."""
        self.bands.draw(self.model, self.plots, self.model.drawn_columns, self.items, self.raw_items,
                        self.style.line)

    def views(self) -> dict[str, PlotView]:
        """Each plot's zoomed x range (None while it follows its data) and width, for the model's requests."""
        out = {}
        for key, plot in self.plots.items():
            view = plot.getViewBox()
            lo, hi = view.viewRange()[0]
            out[key] = PlotView(None if view.autoRangeEnabled()[0] else (float(lo), float(hi)), view.width())
        return out

    def bounds(self, key: str) -> tuple[Range, Range] | None:
        """The x and y range (view units: log10 on a log axis) of plot ``key``'s visible lines; None if empty."""
        plot = self.plots[key]
        return bounds(shown_data(plot), self.model.log_x, bool(plot.getAxis("left").logMode))

    def point_count(self, run_id: str, name: str) -> int:
        """Points of a line on screen (after decimation)."""
        item = self.items.get((run_id, name))
        return 0 if item is None or item.xData is None else len(item.xData)
