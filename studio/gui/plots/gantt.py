"""A Gantt chart: one row per lane (a rank, a GPU), bars from start to end coloured by kind, a legend of the
kinds, and a tooltip naming the bar under the mouse. pyqtgraph's ``BarGraphItem`` draws every bar of a kind
at once (thousands of bars stay fast)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import pyqtgraph as pg
from PySide6.QtCore import QPointF

from studio.gui.plots.palette import OKABE_ITO


@dataclass(frozen=True)
class Bar:
    """One interval of one lane; ``label`` is what the tooltip says of it."""

    lane: int
    start: float
    end: float
    kind: str
    label: str = ""


class GanttPlot(pg.PlotWidget):
    """Lanes top to bottom; x is time (or any unit, ``x_label``)."""

    def __init__(self, x_label: str = "time", x_units: str = "s", parent=None) -> None:  # noqa: ANN001
        super().__init__(parent=parent)
        self.bars: list[Bar] = []
        self.lanes: list[str] = []
        self.colours: dict[str, str] = {}
        self.setMouseEnabled(y=False)
        self.getPlotItem().setLabel("bottom", x_label, units=x_units)
        self.getPlotItem().invertY(True)
        self.getPlotItem().showGrid(x=True, alpha=0.2)
        self.legend = self.getPlotItem().addLegend(offset=(-10, 10), colCount=4)
        self.scene().sigMouseMoved.connect(self._hover)

    def set_bars(self, lanes: list[str], bars: list[Bar], colours: dict[str, str] | None = None) -> None:
        """Draw ``bars`` on ``lanes`` (their names, top to bottom); ``colours`` by kind (the rest: the palette)."""
        item = self.getPlotItem()
        item.clear()
        self.legend.clear()
        self.lanes, self.bars = list(lanes), list(bars)
        by_kind: dict[str, list[Bar]] = defaultdict(list)
        for bar in bars:
            by_kind[bar.kind].append(bar)
        self.colours = {}
        longest = max((len(k) for k in by_kind), default=1)  # as many legend columns as fit the width (≈ 7 px/char)
        self.legend.setColumnCount(max(1, min(4, int(max(self.width(), 300) * 0.9 // (7 * longest + 40)))))
        for i, kind in enumerate(by_kind):
            colour = (colours or {}).get(kind) or OKABE_ITO[i % len(OKABE_ITO)]
            self.colours[kind] = colour
            group = by_kind[kind]
            graph = pg.BarGraphItem(x0=[b.start for b in group], width=[max(b.end - b.start, 0.0) for b in group],
                                    y=[b.lane for b in group], height=0.7, brush=colour, pen=pg.mkPen(None))
            item.addItem(graph)
            self.legend.addItem(graph, kind)
        axis = item.getAxis("left")
        axis.setTicks([[(i, name) for i, name in enumerate(self.lanes)], []])
        axis.setWidth(max(40, 8 * max((len(n) for n in self.lanes), default=4)))
        item.setYRange(-0.6, max(len(self.lanes), 1) - 0.4, padding=0.05)
        if bars:
            item.setXRange(min(b.start for b in bars), max(b.end for b in bars), padding=0.02)

    def bar_at(self, x: float, y: float) -> Bar | None:
        """The bar drawn at data coordinates (x, y), if any."""
        lane = round(y)
        for bar in self.bars:
            if bar.lane == lane and bar.start <= x <= bar.end and abs(y - lane) <= 0.35:
                return bar
        return None

    def _hover(self, pos: QPointF) -> None:
        view = self.getPlotItem().vb
        if not self.sceneBoundingRect().contains(pos):
            return
        point = view.mapSceneToView(pos)
        bar = self.bar_at(point.x(), point.y())
        self.setToolTip(self._describe(bar) if bar else "")

    def _describe(self, bar: Bar) -> str:
        lane = self.lanes[bar.lane] if 0 <= bar.lane < len(self.lanes) else str(bar.lane)
        what = f"{bar.kind}: {bar.label}" if bar.label else bar.kind
        return f"{lane} — {what}, {bar.start:.4g} → {bar.end:.4g} ({bar.end - bar.start:.3g})"
