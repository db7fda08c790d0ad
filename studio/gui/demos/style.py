"""How demo plots look, normally and in presentation mode (projector: large fonts, thick lines, high
contrast: black on white whatever the theme)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont

from studio.gui.plots.axes import plain_numbers
from studio.gui.plots.palette import OKABE_ITO
from studio.gui.session import theme

# line width, marker size, title size, axis label size, tick point size
NORMAL = (2.0, 8, "11pt", "10pt", 9)
PRESENTATION = (5.0, 16, "22pt", "18pt", 16)
HIGH_CONTRAST = ("#ffffff", "#000000")  # background, ink


def _theme_colours() -> tuple[str, str]:
    """(background, ink) of the application's plot theme (light defaults if the theme module lacks them)."""
    colours = getattr(theme, "PLOT_COLOURS", {}).get(getattr(theme, "current", lambda: "light")())
    return (getattr(colours, "background", "#ffffff"), getattr(colours, "foreground", "#202020"))


def colour(i: int) -> str:
    """The i-th series colour (Okabe–Ito, black drawn light on a dark theme)."""
    c = OKABE_ITO[i % len(OKABE_ITO)]
    return theme.curve_colour(c) if hasattr(theme, "curve_colour") else c


_scale = 1.0  # presentation sizes × this: 1 on a 1080-line screen, smaller on 768 lines


def scale_for(screen_height: int) -> float:
    """How much to scale the presentation sizes on a screen this many pixels high (1080: 1)."""
    return float(min(max(screen_height / 1080, 0.8), 1.4))


def set_scale(factor: float) -> None:
    global _scale
    _scale = float(factor)


def scale() -> float:
    return _scale


def metrics(presentation: bool) -> tuple:
    """(line width, marker size, title size, axis label size, tick point size) for the mode."""
    if not presentation:
        return NORMAL
    width, marker, title, label, tick = PRESENTATION
    s = _scale
    return (width * s, round(marker * s), f"{round(int(title[:-2]) * s)}pt", f"{round(int(label[:-2]) * s)}pt",
            round(tick * s))


def pen(c: str, presentation: bool, dashed: bool = False, scale: float = 1.0) -> pg.QtGui.QPen:
    p = pg.mkPen(c, width=metrics(presentation)[0] * scale)
    if dashed:
        p.setStyle(Qt.PenStyle.DashLine)
    return p


def ink(presentation: bool) -> str:
    return HIGH_CONTRAST[1] if presentation else _theme_colours()[1]


def style_view(view: pg.GraphicsView, presentation: bool) -> None:
    """Background of a pyqtgraph view: white in presentation, the theme's otherwise."""
    view.setBackground(HIGH_CONTRAST[0] if presentation else _theme_colours()[0])


def style_plot(plot: pg.PlotItem, title: str, presentation: bool, x_label: str = "", y_label: str = "") -> None:
    """Title, axis labels and ticks at the mode's sizes, in the mode's ink."""
    _, _, title_size, label_size, tick = metrics(presentation)
    colour_ = ink(presentation)
    plot.setTitle(title, size=title_size, color=colour_)
    font = QFont()
    font.setPointSize(tick)
    if presentation:
        font.setBold(True)
    for name, text in (("bottom", x_label), ("left", y_label)):
        axis = plot.getAxis(name)
        axis.setPen(pg.mkPen(colour_, width=2 if presentation else 1))
        axis.setTextPen(colour_)
        axis.setTickFont(font)
        plain_numbers(axis)  # "gap (x0.001)" confuses an audience
        axis.setLabel(text, **{"font-size": label_size, "color": colour_})
    if plot.legend is not None:
        plot.legend.setLabelTextSize(label_size)
        plot.legend.setLabelTextColor(colour_)
        for _, text in plot.legend.items:  # setAttr alone does not re-render existing labels
            text.setText(text.text, size=label_size, color=colour_)
        plot.legend.setBrush((HIGH_CONTRAST[0] if presentation else _theme_colours()[0]) + "c8")


def batch_axis(plot: pg.PlotItem, batches: list[int]) -> None:
    """An x axis in log₂(batch size) with the batch sizes as tick labels (pyqtgraph's log axis crowds them)."""
    ticks = [(float(np.log2(b)), str(int(b))) for b in sorted(set(batches))]
    plot.getAxis("bottom").setTicks([ticks, []])
    if ticks:
        plot.setXRange(ticks[0][0] - 0.4, ticks[-1][0] + 0.4, padding=0)


def log_values(values: np.ndarray) -> np.ndarray:
    """log₁₀ of positive values (others NaN), for plots with :func:`log_axis` ticks."""
    v = np.asarray(values, dtype=float)
    out = np.full(v.shape, np.nan)
    np.log10(v, out=out, where=v > 0)
    return out


def log_axis(plot: pg.PlotItem, name: str, lo: float, hi: float) -> None:
    """Ticks 1, 2, 5 × 10ᵏ (labels on the decades, and on 2 and 5 when the range is under two decades) for an
    axis whose data are log₁₀ values (pyqtgraph's own log axis labels every minor tick and they overlap)."""
    if not (np.isfinite(lo) and np.isfinite(hi)) or hi < lo:
        return
    decades = range(int(np.floor(lo)) - 1, int(np.ceil(hi)) + 1)
    short = hi - lo < 2
    major: list[tuple[float, str]] = []
    minor: list[tuple[float, str]] = []
    for k in decades:
        for m in (1, 2, 5):
            value = m * 10.0**k
            text = f"{value:g}"
            (major if m == 1 or short else minor).append((np.log10(value), text if m == 1 or short else ""))
    plot.getAxis(name).setTicks([major, minor])


def shrinkable_title(plot: pg.PlotItem) -> None:
    """Let a plot's title be narrower than its text: a long title must not widen its grid column past the view.
    pyqtgraph's LabelItem makes its text width its minimum on every text change and resize (``updateMin``);
    this label's own ``updateMin`` then drops the width from the minimum and preferred size."""
    label = plot.titleLabel
    if getattr(label, "_shrinkable", False):
        return
    original = label.updateMin

    def update_min() -> None:
        original()
        label.setMinimumWidth(0)
        for hint in (Qt.SizeHint.MinimumSize, Qt.SizeHint.PreferredSize):
            label._sizeHint[hint] = (0, label._sizeHint[hint][1])  # noqa: SLF001 - pyqtgraph keeps them here
        label.updateGeometry()

    label.updateMin = update_min
    label._shrinkable = True
    update_min()
