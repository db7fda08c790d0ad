"""The Training page's curves, built just after the window shows (or when first asked for): importing pyqtgraph is
the largest part of start-up, so the window does not wait for it. Until then the pane says "Loading the plots…"."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from studio.gui.widgets import wheel_guard

if TYPE_CHECKING:
    from studio.gui.plots.curves import CurvesView

CURVES_AFTER_MS = 30  # the Training tab's plots are built this long after the window shows (start-up)


class CurvesPane(QWidget):
    """Holds the CurvesView once it is built (``view``: None before); :attr:`curves` builds it on demand.
    ``on_built(curves)`` is called once, right after it is made (the window gives it names, colours, presentation)."""

    def __init__(self, on_built: Any = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("curves_holder")
        self.view: CurvesView | None = None
        self.on_built = on_built
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._loading = QLabel("Loading the plots…")
        self._loading.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._layout.addWidget(self._loading)

    @property
    def curves(self) -> CurvesView:
        """The curves, built now if they are not yet."""
        if self.view is None:
            from studio.gui.plots.curves import CurvesView

            curves = CurvesView()
            curves.setObjectName("curves")
            self._loading.deleteLater()
            self._layout.addWidget(curves)
            self.view = curves
            wheel_guard.guard_tree(curves)
            if self.on_built is not None:
                self.on_built(curves)
        return self.view

    def set_labels(self, names: dict[str, str]) -> None:
        """The runs' names for the legend; the curves not built yet take them from the run list when they are."""
        if self.view is not None:
            self.view.set_labels(names)

    def build_later(self) -> None:
        """A timer's side of :attr:`curves`: the window may have been closed and deleted since it was shown."""
        if shiboken6.isValid(self):
            _ = self.curves
