"""Parallel coordinates: one vertical axis per differing setting plus the chosen metric, one line per run,
coloured by the metric (viridis: dark = low, yellow = high). The axes come from ``core/runs/compare.parallel_axes``.
"""

from __future__ import annotations

import math

import pyqtgraph as pg

from studio.core.runs.compare import Axis
from studio.gui.app import theme

NO_VALUE = "#9a9a9a"  # a run without the metric


class ParallelCoordinates(pg.PlotWidget):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("parallel_coordinates")
        item = self.getPlotItem()
        item.hideAxis("left")
        item.hideAxis("bottom")
        item.setMenuEnabled(False)
        item.getViewBox().setMouseEnabled(False, False)
        self.lines: list[pg.PlotDataItem] = []
        self.labels: list[pg.TextItem] = []
        self.hint = ""

    def show_axes(self, axes: list[Axis], run_names: list[str], metric_values: list[float | None]) -> None:
        """Draw ``axes`` (the last one is the metric) with one line per run."""
        self.clear()
        self.lines, self.labels = [], []
        ink = theme.PLOT_COLOURS[theme.current()].foreground
        n = len(axes)
        for i, axis in enumerate(axes):
            self.addItem(pg.InfiniteLine(pos=i, angle=90, pen=pg.mkPen(ink, width=1)))
            title = axis.name + (" (log)" if axis.log else "")
            # the first title starts at its axis (centred, it would be cut off at the plot's left edge)
            self._text(title, i - (0.08 if i == 0 else 0), 1.04, ink, anchor=(0.0 if i == 0 else 0.5, 1.0),
                       bold=i == n - 1)
            for pos, label in _thin(axis.ticks):
                self._text(label, i, pos, ink, anchor=(0, 0.5))
        finite = [v for v in metric_values if v is not None and math.isfinite(v)]
        lo, hi = (min(finite), max(finite)) if finite else (0.0, 1.0)
        cmap = pg.colormap.get("viridis")
        for r, name in enumerate(run_names):
            ys = [math.nan if a.positions[r] is None else a.positions[r] for a in axes]
            value = metric_values[r]
            if value is None or not math.isfinite(value):
                colour = pg.mkColor(NO_VALUE)
            else:
                colour = cmap.map(0.5 if hi == lo else (value - lo) / (hi - lo), mode="qcolor")
            line = self.plot(list(range(n)), ys, pen=pg.mkPen(colour, width=2.5), connect="finite",
                             symbol="o", symbolSize=6, symbolBrush=colour, symbolPen=None, name=name)
            line.setToolTip(name)
            self.lines.append(line)
        self.setXRange(-0.12, max(n - 1, 1) + 0.6, padding=0)
        self.setYRange(-0.08, 1.12, padding=0)

    def _text(self, text: str, x: float, y: float, colour: str, anchor: tuple[float, float], bold: bool = False):
        item = pg.TextItem(text, color=colour, anchor=anchor)
        if bold:
            font = item.textItem.font()
            font.setBold(True)
            item.setFont(font)
        item.setPos(x + (0.03 if anchor == (0, 0.5) else 0), y)
        self.addItem(item)
        self.labels.append(item)
        return item


def _thin(ticks: list[tuple[float, str]], most: int = 9, gap: float = 0.045) -> list[tuple[float, str]]:
    """At most ``most`` tick labels, none closer than ``gap`` (in axis units) to another; the ends are kept."""
    ticks = sorted(ticks)
    if len(ticks) > most:
        step = (len(ticks) - 1) / (most - 1)
        ticks = [ticks[round(i * step)] for i in range(most)]
    kept: list[tuple[float, str]] = []
    for i, tick in enumerate(ticks):
        if kept and tick[0] - kept[-1][0] < gap:
            if i != len(ticks) - 1:
                continue
            kept.pop()  # the last (highest) tick wins over its close neighbour
        kept.append(tick)
    return kept
