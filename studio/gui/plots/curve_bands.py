"""A seed group drawn as its mean and a shaded band (pyqtgraph): one mean line and one band per group and metric,
in the colour of the group's first run; its runs' own lines are hidden. The arrays come from
``CurveModel.bands`` (each run smoothed, then aggregated)."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from studio.gui.plots.curve_model import CurveModel
from studio.gui.session.theme import curve_colour

BAND_ALPHA = 55  # the shaded band's opacity (of 255): the mean line and the grid show through it


class BandLayer:
    """The bands' items: ``(group id, metric) → (mean, lower edge, upper edge, fill)``."""

    def __init__(self) -> None:
        self.items: dict[tuple[str, str], tuple[pg.PlotDataItem, pg.PlotDataItem, pg.PlotDataItem,
                                                pg.FillBetweenItem]] = {}
        self._plot_of: dict[tuple[str, str], pg.PlotItem] = {}

    def clear(self) -> None:
        """Forget the items (their plots were cleared)."""
        self.items.clear()
        self._plot_of.clear()

    def draw(self, model: CurveModel, plots: dict[str, pg.PlotItem], columns: dict[str, int],
             line_items: dict[tuple[str, str], pg.PlotDataItem], raw_items: dict[tuple[str, str], pg.PlotDataItem],
             width: int) -> None:
        """Every group's band in every plot (``columns``: the plot's decimation width); the grouped runs' own
        lines hidden, the others shown; bands no longer wanted removed."""
        grouped = model.grouped()
        for (run_id, _name), item in line_items.items():
            item.setVisible(run_id not in grouped)
        for (run_id, _name), raw in raw_items.items():
            if run_id in grouped:
                raw.setVisible(False)
        colours = model.colours()
        groups = {g.id: g for g in model.groups()}
        wanted: set[tuple[str, str]] = set()
        for key, plot in plots.items():
            dashed = {name: d for name, _line, d, _s in model.plotted(key)}
            for (gid, name), b in model.bands(key, columns.get(key, 800)).items():
                colour = curve_colour(colours[groups[gid].run_ids[0]])
                mean, lower, upper, _fill = self._items(plot, (gid, name), colour, width, dashed.get(name, False))
                mean.setData(b.x, b.mean)
                lower.setData(b.x, b.lower)
                upper.setData(b.x, b.upper)
                wanted.add((gid, name))
        for gone in [k for k in self.items if k not in wanted]:
            plot = self._plot_of.pop(gone)
            for item in self.items.pop(gone):
                plot.removeItem(item)

    def _items(self, plot: pg.PlotItem, key: tuple[str, str], colour: str, width: int,
               dashed: bool) -> tuple[pg.PlotDataItem, pg.PlotDataItem, pg.PlotDataItem, pg.FillBetweenItem]:
        found = self.items.get(key)
        if found is not None and self._plot_of.get(key) is plot:
            found[0].setPen(pen(colour, width, dashed))
            return found
        mean = plot.plot([], [], pen=pen(colour, width, dashed), dynamicRangeLimit=None)
        mean.setProperty("band", True)
        edge = pg.mkPen((0, 0, 0, 0))  # invisible edges; with no pen at all pyqtgraph keeps no path to fill between
        lower = plot.plot([], [], pen=edge, dynamicRangeLimit=None)
        upper = plot.plot([], [], pen=edge, dynamicRangeLimit=None)
        shade = QColor(colour)
        shade.setAlpha(BAND_ALPHA)
        fill = pg.FillBetweenItem(lower, upper, brush=pg.mkBrush(shade))
        fill.setZValue(-2)
        plot.addItem(fill)
        self.items[key] = (mean, lower, upper, fill)
        self._plot_of[key] = plot
        return self.items[key]


def pen(colour: str, width: int, dashed: bool) -> object:
    """A band's mean line: the run's colour and width, dashed for a validation metric."""
    return pg.mkPen(colour, width=width, style=Qt.PenStyle.DashLine if dashed else Qt.PenStyle.SolidLine)
