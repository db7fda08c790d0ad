"""Parallel coordinates: one vertical axis per differing setting plus the chosen metric, one line per run,
coloured by the metric (viridis: dark = low, yellow = high). The axes come from ``core/runs/compare.parallel_axes``.
"""

from __future__ import annotations

import math

import pyqtgraph as pg

from studio.core.runs.compare import Axis
from studio.gui.plots.empty_hint import EmptyHint
from studio.gui.session import theme

NO_VALUE = "#9a9a9a"  # a run without the metric
HINT = "Tick two or more runs in the list on the left: each becomes a line across the settings that differ"
X_RANGE = (-0.12, 0.6)  # room left of the first axis and right of the last (its tick labels)
TITLE_GAP_PX = 10  # the least room between two axis titles in one row


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
        self.titles: list[pg.TextItem] = []  # the axes' titles (also in ``labels``), in rows so none overlap
        self.hint = ""
        self.empty = EmptyHint(self, HINT, axes=())

    def show_empty(self, text: str = HINT) -> None:
        """Nothing to compare: no axes, the hint."""
        self.clear()
        self.lines, self.labels, self.titles = [], [], []
        self.empty.show_hint(text)

    def show_axes(self, axes: list[Axis], run_names: list[str], metric_values: list[float | None]) -> None:
        """Draw ``axes`` (the last one is the metric) with one line per run."""
        self.clear()
        self.empty.hide_hint()
        self.lines, self.labels, self.titles = [], [], []
        ink = theme.PLOT_COLOURS[theme.current()].foreground
        n = len(axes)
        for i, axis in enumerate(axes):
            # the axis spans its values (0…1), not the whole height: the titles above it stay clear of it
            self.addItem(pg.PlotCurveItem([i, i], [-0.02, 1.0], pen=pg.mkPen(ink, width=1)))
            title = axis.name + (" (log)" if axis.log else "")
            # the first title starts at its axis (centred, it would be cut off at the plot's left edge)
            self.titles.append(self._text(title, i - (0.08 if i == 0 else 0), 1.04, ink,
                                          anchor=(0.0 if i == 0 else 0.5, 1.0), bold=i == n - 1))
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
        self.setXRange(X_RANGE[0], max(n - 1, 1) + X_RANGE[1], padding=0)
        self.layout_titles()

    def layout_titles(self) -> int:
        """Put the axis titles in rows so that none overlaps another (close axes with long names take a second
        or third row), and make room above the axes for the rows; returns how many rows. Called again on
        resize: the room between axes is in pixels."""
        n = len(self.titles)
        item = self.getPlotItem()
        view = item.getViewBox() if item is not None else None
        if view is None:  # the plot is being torn down
            return 0
        width_px, height_px = view.width(), view.height()
        if not n or width_px <= 0 or height_px <= 0:
            self.setYRange(-0.08, 1.12, padding=0)
            return 0
        per_x = width_px / (max(n - 1, 1) + X_RANGE[1] - X_RANGE[0])
        spans, line_px = [], 0.0
        for i, title in enumerate(self.titles):
            box = title.boundingRect()  # in pixels: a TextItem ignores the view's scaling
            w = box.width()
            line_px = max(line_px, box.height())
            left = (i - X_RANGE[0]) * per_x - (0.08 * per_x if i == 0 else w / 2)
            left = min(max(left, 0.0), max(width_px - w, 0.0))  # inside the plot, not cut at its edges
            spans.append((left, left + w))
        ends: list[float] = []  # per row: where its last title ends
        rows = []
        for left, right in spans:
            row = next((r for r, end in enumerate(ends) if left >= end + TITLE_GAP_PX), len(ends))
            if row == len(ends):
                ends.append(right)
            else:
                ends[row] = right
            rows.append(row)
        count = len(ends)
        # top of the y range such that ``count`` rows of ``line_px`` fit above 1.02 (the axes span 0…1)
        frac = count * line_px / height_px
        top = (1.02 + frac * 0.08) / max(1.0 - frac, 0.2)
        per_y = height_px / (top + 0.08)
        for title, row, (left, _right) in zip(self.titles, rows, spans, strict=True):
            title.setAnchor((0.0, 1.0))
            title.setPos(X_RANGE[0] + left / per_x, 1.02 + row * line_px / per_y)
        self.setYRange(-0.08, top, padding=0)
        return count

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        if getattr(self, "titles", None):  # Qt resizes the widget while pg.PlotWidget.__init__ runs
            self.layout_titles()

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
