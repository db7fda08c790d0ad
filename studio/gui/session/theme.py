"""Light and dark themes (Fusion style + a palette), following the system by default, and plot colours
that stay readable in both: pyqtgraph's background, axes, titles and legends are restyled, and the one
Okabe–Ito colour that vanishes on a dark background (black) is drawn light there.
"""

from __future__ import annotations

import os
import sys
import weakref
from dataclasses import dataclass
from typing import Any

import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QGraphicsView, QWidget

INK_ON_LIGHT = "#000000"  # the palette's black (Okabe–Ito's eighth colour)
INK_ON_DARK = "#e6e6e6"  # what it becomes on a dark background
# The one colour of a failure (an error line, a FAIL verdict, a field that is wrong), per theme: the only place a
# red is written in the GUI (contrast ≥ 4.5:1 on the theme's window and base colours).
ERROR_COLOURS = {"light": "#c00000", "dark": "#ff6b6b"}


@dataclass(frozen=True)
class PlotColours:
    background: str
    foreground: str


PLOT_COLOURS = {
    "light": PlotColours(background="#ffffff", foreground="#202020"),
    "dark": PlotColours(background="#1e1f22", foreground="#dcdcdc"),
}

_current = "light"


def current() -> str:
    """The theme in effect: ``"light"`` or ``"dark"``."""
    return _current


def error_colour(name: str | None = None) -> str:
    """The colour of a failure in theme ``name`` (default: the theme in effect), e.g. ``"#c00000"``."""
    return ERROR_COLOURS[name or _current]


def error_style() -> str:
    """A widget style sheet that writes its text in the error colour of the theme in effect."""
    return f"color: {error_colour()}"


def running_app() -> QApplication | None:
    """The running QApplication; None before one exists (or when it is only a QCoreApplication: no style, no
    palette). ``QApplication.instance()`` is typed as the QCoreApplication it may be."""
    app = QApplication.instance()
    return app if isinstance(app, QApplication) else None


def system_prefers_dark(app: QApplication | None = None) -> bool:
    """The desktop's colour scheme (Qt ≥ 6.5 reads it from the platform); GTK_THEME=…:dark as a fallback."""
    app = app or running_app()
    if app is not None:
        scheme = app.styleHints().colorScheme()
        if scheme == Qt.ColorScheme.Dark:
            return True
        if scheme == Qt.ColorScheme.Light:
            return False
    return os.environ.get("GTK_THEME", "").lower().endswith(":dark")


def resolve(theme: str, app: QApplication | None = None) -> str:
    """``"system"`` → what the desktop uses; ``"light"``/``"dark"`` as they are."""
    if theme == "system":
        return "dark" if system_prefers_dark(app) else "light"
    if theme not in ("light", "dark"):
        raise ValueError(f"unknown theme {theme!r}")
    return theme


def palette(name: str) -> QPalette:
    """A complete Fusion palette for ``"light"`` or ``"dark"`` (contrast ≥ 7:1 for body text)."""
    r = QPalette.ColorRole
    g = QPalette.ColorGroup
    if name == "dark":
        colours = {r.Window: "#2b2d31", r.WindowText: "#e8e8e8", r.Base: "#1e1f22", r.AlternateBase: "#26282c",
                   r.ToolTipBase: "#3c3f44", r.ToolTipText: "#f0f0f0", r.PlaceholderText: "#9a9a9a",
                   r.Text: "#e8e8e8", r.Button: "#35373c", r.ButtonText: "#e8e8e8",
                   r.BrightText: ERROR_COLOURS["dark"],
                   r.Light: "#4a4d52", r.Midlight: "#3e4146", r.Mid: "#2f3135", r.Dark: "#191a1d",
                   r.Shadow: "#000000", r.Highlight: "#2f6db5", r.HighlightedText: "#ffffff",
                   r.Link: "#6cb6ff", r.LinkVisited: "#c39cf0"}
        disabled = {r.WindowText: "#7d7d7d", r.Text: "#7d7d7d", r.ButtonText: "#7d7d7d", r.Highlight: "#4a4d52"}
    else:
        colours = {r.Window: "#f3f3f3", r.WindowText: "#1a1a1a", r.Base: "#ffffff", r.AlternateBase: "#f5f7fa",
                   r.ToolTipBase: "#ffffdc", r.ToolTipText: "#1a1a1a", r.PlaceholderText: "#707070",
                   r.Text: "#1a1a1a", r.Button: "#ececec", r.ButtonText: "#1a1a1a",
                   r.BrightText: ERROR_COLOURS["light"],
                   r.Light: "#ffffff", r.Midlight: "#f6f6f6", r.Mid: "#bdbdbd", r.Dark: "#9e9e9e",
                   r.Shadow: "#6e6e6e", r.Highlight: "#0a64ad", r.HighlightedText: "#ffffff",
                   r.Link: "#0a58a0", r.LinkVisited: "#6a3d9a"}
        disabled = {r.WindowText: "#8c8c8c", r.Text: "#8c8c8c", r.ButtonText: "#8c8c8c", r.Highlight: "#c8c8c8"}
    pal = QPalette()
    for role, colour in colours.items():
        pal.setColor(role, QColor(colour))
    for role, colour in disabled.items():
        pal.setColor(g.Disabled, role, QColor(colour))
    return pal


def curve_colour(colour: str) -> str:
    """A run colour as drawn in the current theme (black becomes light grey on dark)."""
    if _current == "dark" and colour.lower() == INK_ON_LIGHT:
        return INK_ON_DARK
    return colour


# The windows a theme change restyles (``track``). Walking ``app.topLevelWidgets()`` instead crashed Qt twice in CI
# (a segfault in ``isVisible``): that list also holds every stray top-level (a closed window's menus, tooltips,
# a page's parentless widget), and one can be freed while the loop runs — by Python's garbage collector on the
# curve loader's thread. Only the windows that asked are visited, and only while their C++ object lives.
_windows: weakref.WeakSet[QWidget] = weakref.WeakSet()


def track(window: QWidget) -> None:
    """Restyle ``window``'s plots on every later theme change (the main window registers itself)."""
    _windows.add(window)


def apply(theme: str, app: QApplication | None = None, restyle_windows: bool = True) -> str:
    """Apply ``"system"``, ``"light"`` or ``"dark"`` to the application and every plot; returns light/dark.
    ``restyle_windows=False``: the palette and pyqtgraph's defaults only, the open windows' plots left as they are
    (a window being built restyles its own)."""
    global _current
    app = app or running_app()
    if app is None:
        raise RuntimeError("a theme needs a running QApplication")
    name = resolve(theme, app)
    _current = name
    if app.style().name().lower() != "fusion":
        app.setStyle("Fusion")
    app.setPalette(palette(name))
    if "pyqtgraph" in sys.modules:  # else the first plot sets its colours (plot_options) when it loads it
        plot_options()
    if restyle_windows:  # tracked, live and shown windows only: a closed one may be half torn down
        for top in list(_windows):
            if shiboken6.isValid(top) and top.isVisible():
                restyle_plots(top, name)
    return name


def plot_options() -> None:
    """pyqtgraph's default colours for the current theme (before a plot is made)."""
    import pyqtgraph as pg

    colours = PLOT_COLOURS[_current]
    pg.setConfigOptions(background=colours.background, foreground=colours.foreground)


def restyle_plots(root: QWidget, name: str | None = None) -> int:
    """Restyle every pyqtgraph view under ``root`` for the theme; returns how many views changed."""
    if "pyqtgraph" not in sys.modules:
        return 0  # no plot has been made yet
    import pyqtgraph as pg

    name = name or _current
    colours = PLOT_COLOURS[name]
    old_ink, new_ink = (INK_ON_LIGHT, INK_ON_DARK) if name == "dark" else (INK_ON_DARK, INK_ON_LIGHT)
    views = [v for v in root.findChildren(QGraphicsView) if isinstance(v, pg.GraphicsView)]
    if isinstance(root, pg.GraphicsView):
        views.append(root)
    for view in views:
        view.setBackground(colours.background)
        scene = view.scene()
        if scene is None:
            continue
        for item in scene.items():
            if isinstance(item, pg.AxisItem):
                item.setPen(colours.foreground)
                item.setTextPen(colours.foreground)
            elif isinstance(item, pg.LegendItem):
                item.setLabelTextColor(colours.foreground)  # no frame or fill: an empty legend stays invisible
                if item.brush().style() != Qt.BrushStyle.NoBrush:  # a filled legend: the fill follows the theme
                    fill = QColor(colours.background)  # (a light fill kept under light text was unreadable)
                    fill.setAlpha(item.brush().color().alpha())
                    item.setBrush(fill)
            elif isinstance(item, pg.LabelItem):
                item.setText(item.text, color=colours.foreground)
            elif isinstance(item, pg.PlotDataItem):
                _swap_ink(item, old_ink, new_ink)
    return len(views)


def _swap_ink(item: Any, old: str, new: str) -> None:
    """``item``: a pyqtgraph PlotDataItem (pyqtgraph is untyped)."""
    import pyqtgraph as pg

    opts = item.opts
    pen = opts.get("pen")
    if pen is not None:
        pen = pg.mkPen(pen)
        if pen.color().name() == old:
            pen.setColor(QColor(new))
            item.setPen(pen)
    for key, setter in (("symbolBrush", "setSymbolBrush"), ("symbolPen", "setSymbolPen")):
        value = opts.get(key)
        if value is None:
            continue
        made = pg.mkBrush(value) if key == "symbolBrush" else pg.mkPen(value)
        if made.color().name() == old:
            made.setColor(QColor(new))
            getattr(item, setter)(made)
