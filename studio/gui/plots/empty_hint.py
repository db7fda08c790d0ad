"""What an empty plot shows: a sentence saying what to do, and no axes (an empty pyqtgraph plot otherwise shows
meaningless ones, such as "true class (×0.001) −500…500").

``hint = EmptyHint(plot, "Select a run…")`` shows the text at once; ``hint.hide_hint()`` once there is data brings
the axes back; ``hint.show_hint(text)`` when the plot is empty again. The text is a QLabel laid over the plot,
centred and word-wrapped, in the palette's colours, so it is readable in both themes and at any size.
"""

from __future__ import annotations

from collections.abc import Sequence

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QLabel, QWidget

AXES = ("left", "bottom")


def plot_items(view: pg.GraphicsView) -> list[pg.PlotItem]:
    """The plots a pg.PlotWidget or a pg.GraphicsLayoutWidget shows."""
    if isinstance(view, pg.PlotWidget):
        return [view.getPlotItem()]
    layout = getattr(view, "ci", None)
    return [item for item in getattr(layout, "items", {}) if isinstance(item, pg.PlotItem)]


class EmptyHint(QObject):
    """A hint over ``plot`` (a pg.PlotWidget or GraphicsLayoutWidget) while it has nothing to show; the
    ``axes`` its plots show are hidden meanwhile (and only those come back)."""

    def __init__(self, plot: pg.GraphicsView, text: str, axes: Sequence[str] = AXES, shown: bool = True) -> None:
        super().__init__(plot)
        self.plot = plot
        self.axes = tuple(axes)
        self._hidden: list[tuple[pg.PlotItem, str]] = []  # the axes this hint hid
        self.label = QLabel(text, plot)
        self.label.setObjectName("empty_hint")
        self.label.setWordWrap(True)
        self.label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.label.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.label.setContentsMargins(16, 16, 16, 16)
        plot.installEventFilter(self)
        self._place()
        if shown:
            self.show_hint()
        else:
            self.label.hide()

    @property
    def shown(self) -> bool:
        """True while the hint is up (not whether the plot itself is visible)."""
        return not self.label.isHidden()

    def text(self) -> str:
        return self.label.text()

    def show_hint(self, text: str | None = None) -> None:
        """The plot is empty: show ``text`` (or the last one) and hide the axes and the title."""
        if text is not None:
            self.label.setText(text)
        for item in plot_items(self.plot):
            for side in self.axes:
                if item.getAxis(side).isVisible():
                    item.hideAxis(side)
                    self._hidden.append((item, side))
        self.label.show()
        self.label.raise_()
        self._place()

    def hide_hint(self) -> None:
        """There is data: the axes come back, the hint goes."""
        for item, side in self._hidden:
            item.showAxis(side)
        self._hidden = []
        self.label.hide()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        # (while Python tears the wrapper down, Qt may still ask: then there is no ``plot`` attribute left)
        if event.type() in (QEvent.Type.Resize, QEvent.Type.Show) and watched is getattr(self, "plot", None):
            self._place()
        return False

    def _place(self) -> None:
        self.label.setGeometry(self.plot.rect())


def hint_of(widget: QWidget) -> EmptyHint | None:
    """The EmptyHint over ``widget`` (a plot), if it has one."""
    for child in widget.children():
        if isinstance(child, EmptyHint):
            return child
    return None
