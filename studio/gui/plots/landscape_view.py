"""Drawing a computed landscape: a heat map with iso-lines and the optimizer's path, a 3-D surface
(pyqtgraph.opengl when OpenGL is available, a label saying why not otherwise) and 1-D curves.

Takes a ``studio.core.landscape.io.Landscape`` (numpy arrays only); never imports torch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QLabel, QTabWidget, QVBoxLayout, QWidget

from studio.core.vocab import LandscapeKind
from studio.gui.plots.empty_hint import EmptyHint
from studio.gui.plots.palette import OKABE_ITO

if TYPE_CHECKING:
    from studio.core.landscape.io import Landscape

ISO_LEVELS = 12
COLORMAP = "viridis"


def display_values(loss: np.ndarray, log: bool) -> np.ndarray:
    """The loss as shown: log10 when asked (floored at a tiny positive value)."""
    values = np.asarray(loss, dtype=float)
    if log:
        values = np.log10(np.clip(values, 1e-12, None))
    return values


def iso_levels(values: np.ndarray, count: int = ISO_LEVELS) -> np.ndarray:
    """Levels spread over the lower part of the range, where the basin is (quantiles of the values)."""
    finite = values[np.isfinite(values)]
    if finite.size == 0 or np.ptp(finite) == 0:
        return np.array([])
    return np.unique(np.quantile(finite, np.linspace(0.02, 0.9, count)))


def iso_lines(values: np.ndarray, level: float, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The ``level`` iso-lines of ``values`` (rows = y) in plot coordinates, pieces separated by NaN."""
    pieces = pg.functions.isocurve(values.T, level, connected=True, extendToEdge=False)
    xs: list[float] = []
    ys: list[float] = []
    ix, iy = np.arange(len(x)), np.arange(len(y))
    for piece in pieces:
        pts = np.asarray(piece, dtype=float) - 0.5  # pyqtgraph puts grid node i at pixel centre i + 0.5
        xs += list(np.interp(pts[:, 0], ix, x)) + [np.nan]
        ys += list(np.interp(pts[:, 1], iy, y)) + [np.nan]
    return np.asarray(xs), np.asarray(ys)


class HeatMap(QWidget):
    """The 2-D landscape as an image with iso-lines, a colour bar, the centre and an optional path."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.plot_widget = pg.PlotWidget()
        layout.addWidget(self.plot_widget)
        self.plot = self.plot_widget.getPlotItem()
        self.plot.setAspectLocked(False)
        self.plot.showGrid(x=True, y=True, alpha=0.2)
        self.image = pg.ImageItem()
        self.plot.addItem(self.image)
        self.cmap = pg.colormap.get(COLORMAP)
        self.image.setColorMap(self.cmap)
        self.colorbar = pg.ColorBarItem(colorMap=self.cmap, interactive=False, width=14)
        self.colorbar.setImageItem(self.image, insert_in=self.plot)
        self.isocurves: list[pg.PlotDataItem] = []
        self.path_item = pg.PlotDataItem([], [], pen=pg.mkPen("#FFFFFF", width=2), symbol="o", symbolSize=6,
                                         symbolBrush=OKABE_ITO[3], symbolPen="#FFFFFF")
        self.center_item = pg.ScatterPlotItem([], [], symbol="+", size=16, pen=pg.mkPen("#FFFFFF", width=2))
        self.plot.addItem(self.path_item)
        self.plot.addItem(self.center_item)
        self.path_item.setZValue(10)
        self.center_item.setZValue(11)
        self.empty = EmptyHint(self.plot_widget, "Pick a run and press Compute: the loss around its weights "
                                                 "appears here")
        self.colorbar.setVisible(False)  # no colours to explain yet

    def draw(self, x: np.ndarray, y: np.ndarray, loss: np.ndarray, path: np.ndarray | None, log: bool,
             labels: tuple[str, str] = ("direction 1", "direction 2"), note: str = "") -> None:
        self.empty.hide_hint()
        self.colorbar.setVisible(True)
        values = display_values(loss, log)
        finite = values[np.isfinite(values)]
        lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
        self.image.setImage(values.T, autoLevels=False, levels=(lo, hi if hi > lo else lo + 1e-9))
        dx = (x[-1] - x[0]) / max(len(x) - 1, 1)
        dy = (y[-1] - y[0]) / max(len(y) - 1, 1)
        self.image.setRect(QRectF(x[0] - dx / 2, y[0] - dy / 2, dx * len(x), dy * len(y)))
        self.colorbar.setLevels((lo, hi if hi > lo else lo + 1e-9))
        for item in self.isocurves:
            self.plot.removeItem(item)
        self.isocurves = []
        for level in iso_levels(values):
            xs, ys = iso_lines(values, float(level), x, y)
            item = pg.PlotDataItem(xs, ys, connect="finite", pen=pg.mkPen((255, 255, 255, 150), width=1))
            item.setZValue(5)
            self.plot.addItem(item)
            self.isocurves.append(item)
        if path is not None and len(path):
            self.path_item.setData(path[:, 0], path[:, 1])
        else:
            self.path_item.setData([], [])
        self.center_item.setData([0.0], [0.0])
        self.plot.setLabel("bottom", labels[0])
        self.plot.setLabel("left", labels[1])
        title = "log₁₀ loss" if log else "loss"
        self.plot.setTitle(f"{title} · <small>{note}</small>" if note else title)
        self.plot.autoRange()

    def image_shape(self) -> tuple[int, ...]:
        return () if self.image.image is None else tuple(self.image.image.shape)

    def clear(self) -> None:
        """Show nothing (another run was chosen)."""
        self.image.clear()
        for item in self.isocurves:
            self.plot.removeItem(item)
        self.isocurves = []
        self.path_item.setData([], [])
        self.center_item.setData([], [])
        self.plot.setTitle("")


class Surface3D(QWidget):
    """A 3-D surface with pyqtgraph.opengl, or a label saying why it cannot be shown."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.view = None
        self.surface = None
        self.reason = self._why_not()
        if self.reason is None:
            try:
                import pyqtgraph.opengl as gl

                self.view = gl.GLViewWidget()
                self.view.setCameraPosition(distance=4, elevation=30, azimuth=45)
                self.surface = gl.GLSurfacePlotItem(shader="heightColor", smooth=False)
                self.view.addItem(gl.GLGridItem())
                self.view.addItem(self.surface)
                layout.addWidget(self.view)
            except Exception as err:  # noqa: BLE001 - any OpenGL failure becomes the fallback label
                self.view, self.reason = None, f"OpenGL could not start ({type(err).__name__}: {err})"
        self.fallback = QLabel()
        self.fallback.setWordWrap(True)
        self.fallback.setAlignment(Qt.AlignmentFlag.AlignCenter)
        if self.view is None:
            self.fallback.setText(f"The 3-D surface is not available: {self.reason}. The heat map shows the same "
                                  "data.")
            layout.addWidget(self.fallback)

    @staticmethod
    def _why_not() -> str | None:
        if QGuiApplication.platformName() in ("offscreen", "minimal"):
            return "this display has no OpenGL (Qt platform " + QGuiApplication.platformName() + ")"
        try:
            import OpenGL  # noqa: F401
        except ImportError:
            return "PyOpenGL is not installed (pip install PyOpenGL)"
        return None

    @property
    def available(self) -> bool:
        return self.view is not None

    def draw(self, x: np.ndarray, y: np.ndarray, loss: np.ndarray, log: bool) -> None:
        if self.surface is None:
            return
        z = display_values(loss, log)
        z = np.where(np.isfinite(z), z, np.nanmax(z[np.isfinite(z)]) if np.isfinite(z).any() else 0.0)
        span = max(np.ptp(z), 1e-9)
        xs = (x - x.mean()) / max(np.ptp(x), 1e-9) * 2
        ys = (y - y.mean()) / max(np.ptp(y), 1e-9) * 2
        zs = (z - z.min()) / span * 1.5
        self.surface.setData(x=xs, y=ys, z=zs.T)
        self.surface.shader()["colorMap"] = np.array([0.6, 0.0, 0.5, 0.6, 0.3, 0.2, 0.2, 0.6, 0.9])
        self.surface.setVisible(True)

    def clear(self) -> None:
        if self.surface is not None:
            self.surface.setVisible(False)


class Curves1D(QWidget):
    """Loss and accuracy along α for each data split; α = 0 and α = 1 marked."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.graphics = pg.GraphicsLayoutWidget()
        layout.addWidget(self.graphics)
        self.loss_plot = self.graphics.addPlot(row=0, col=0, title="Loss")
        self.acc_plot = self.graphics.addPlot(row=1, col=0, title="Accuracy")
        for plot in (self.loss_plot, self.acc_plot):
            plot.showGrid(x=True, y=True, alpha=0.25)
            plot.setLabel("bottom", "α")
            plot.addLegend(offset=(-10, 10))
        self.acc_plot.setXLink(self.loss_plot)

    def draw(self, alphas: np.ndarray, values: dict[str, np.ndarray], log: bool) -> None:
        for plot in (self.loss_plot, self.acc_plot):
            plot.clear()
            if plot.legend is not None:
                plot.legend.clear()
        splits = sorted({key.split("/")[0] for key in values}, key=lambda s: (s != "train", s))
        for i, split in enumerate(splits):
            pen = pg.mkPen(OKABE_ITO[i % len(OKABE_ITO)], width=2)
            if f"{split}/loss" in values:
                self.loss_plot.plot(alphas, values[f"{split}/loss"], pen=pen, name=split)
            acc = values.get(f"{split}/acc")
            if acc is not None and np.isfinite(acc).any():
                self.acc_plot.plot(alphas, acc, pen=pen, name=split)
        self.loss_plot.setLogMode(y=log)
        for plot in (self.loss_plot, self.acc_plot):
            for alpha, label, height in ((0.0, "α = 0", 0.95), (1.0, "α = 1", 0.85)):
                plot.addItem(pg.InfiniteLine(alpha, angle=90, pen=pg.mkPen("#888888", style=Qt.PenStyle.DashLine),
                                             label=label, labelOpts={"position": height, "color": "#888888"}))

    def curve_count(self) -> int:
        return len(self.loss_plot.listDataItems())

    def clear(self) -> None:
        for plot in (self.loss_plot, self.acc_plot):
            plot.clear()
            if plot.legend is not None:
                plot.legend.clear()


class LandscapeView(QTabWidget):
    """Heat map, 3-D surface and 1-D curves of one result, in tabs."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.heatmap = HeatMap()
        self.surface = Surface3D()
        self.curves = Curves1D()
        self.addTab(self.heatmap, "Contour")
        self.addTab(self.surface, "3-D surface")
        self.addTab(self.curves, "1-D")

    def clear(self) -> None:
        """Show no result (the chosen run has none yet)."""
        for view in (self.heatmap, self.surface, self.curves):
            view.clear()

    def show_result(self, result: Landscape, log: bool) -> None:
        kind = result.kind
        if kind == LandscapeKind.LINE:
            self.curves.draw(result.x, result.values, log)
            self.setCurrentWidget(self.curves)
            return
        if result.y is None:
            raise ValueError(f"a {kind} landscape has y coordinates")
        labels = ("direction 1", "direction 2")
        if kind == LandscapeKind.TRAJECTORY:
            ev = result.meta.get("explained_variance") or [0.0, 0.0]
            labels = (f"PC 1 ({100 * ev[0]:.1f}% of the variance)", f"PC 2 ({100 * ev[1]:.1f}%)")
        note = str(result.meta.get("batch_norm", ""))
        note = note if note.startswith("BatchNorm") else ""  # say so in the plot when BatchNorm is involved
        self.heatmap.draw(result.x, result.y, result.loss, result.path, log, labels, note)
        self.surface.draw(result.x, result.y, result.loss, log)
        if self.currentWidget() is self.curves:
            self.setCurrentWidget(self.heatmap)
