"""A function over a 2-D box drawn as a heat map with iso-lines (for the race and the linear neuron)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF

from studio.gui.plots.landscape_view import iso_lines

# light at the minimum, blue-grey up the walls: coloured paths stay visible on it, in light and dark themes
MAP = pg.ColorMap([0.0, 0.5, 1.0], [(255, 255, 255), (214, 226, 240), (150, 172, 204)])


class ContourMap:
    """An ImageItem (log-scaled values, a colour map) and iso-line items on ``plot``."""

    def __init__(self, plot: pg.PlotItem) -> None:
        self.plot = plot
        self.image = pg.ImageItem()
        self.image.setZValue(-20)
        self.image.setColorMap(MAP)
        plot.addItem(self.image)
        self.lines: list[pg.PlotDataItem] = []
        self.levels: list[float] = []

    def show(self, xs: np.ndarray, ys: np.ndarray, z: np.ndarray, levels: np.ndarray) -> None:
        """``z[i, j]`` at (xs[j], ys[i]); iso-lines at ``levels``."""
        zmin = float(np.nanmin(z))
        shown = np.log10(np.clip(z - zmin, 0, None) + 1e-3 * max(float(np.nanmax(z) - zmin), 1e-12))
        self.image.setImage(shown.T, autoLevels=True)
        dx, dy = (xs[-1] - xs[0]) / (len(xs) - 1), (ys[-1] - ys[0]) / (len(ys) - 1)
        self.image.setRect(QRectF(xs[0] - dx / 2, ys[0] - dy / 2, dx * len(xs), dy * len(ys)))
        for item in self.lines:
            self.plot.removeItem(item)
        self.lines = []
        for level in levels:
            lx, ly = iso_lines(z, float(level), xs, ys)
            item = pg.PlotDataItem(lx, ly, connect="finite")
            item.setZValue(-10)
            self.plot.addItem(item)
            self.lines.append(item)
        self.restyle(False)

    def restyle(self, presentation: bool) -> None:
        pen = pg.mkPen((40, 40, 40, 200) if presentation else (90, 100, 120, 150), width=2 if presentation else 1)
        for item in self.lines:
            item.setPen(pen)

    def has_data(self) -> bool:
        return self.image.image is not None and self.image.image.size > 0
