"""The Teaching lab tab: the list of demos on the left, the chosen demo's view on the right.

Views are built when first chosen; each computation is a background job the Session starts (from the
warm back end, so PyTorch is already imported there), never in the GUI.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from studio.core.demos.catalog import DEMOS
from studio.gui.demos import style
from studio.gui.demos.base import DemoView
from studio.gui.demos.edge_of_stability_view import EdgeOfStabilityView
from studio.gui.demos.large_batch_view import LargeBatchView
from studio.gui.demos.linear_neuron_view import LinearNeuronView
from studio.gui.demos.noise_scale_view import NoiseScaleView
from studio.gui.demos.playground_view import PlaygroundView
from studio.gui.demos.race_view import RaceView
from studio.gui.demos.regularisation_view import RegularisationView
from studio.gui.widgets import wheel_guard

VIEWS: dict[str, type[DemoView]] = {
    "optimizer_race": RaceView,
    "linear_neuron": LinearNeuronView,
    "playground": PlaygroundView,
    "large_batch": LargeBatchView,
    "noise_scale": NoiseScaleView,
    "regularisation": RegularisationView,
    "edge_of_stability": EdgeOfStabilityView,
}
TITLES = {
    "optimizer_race": "Optimizer race",
    "linear_neuron": "The linear neuron",
    "playground": "Classification playground",
    "large_batch": "Large-batch lab",
    "noise_scale": "Gradient noise scale",
    "regularisation": "Overfitting & regularisation",
    "edge_of_stability": "Edge of stability",
}


class TeachingLab(QWidget):
    """The tab (``EXTRA_TABS``): ``TeachingLab(session, parent)``; ``set_presentation`` reaches every view."""

    uses_settings_panel = False  # the demos have their own parameters: the window gives the lab its width

    def __init__(self, session: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.presentation = False
        self.views: dict[str, DemoView] = {}
        self.list = QListWidget()
        self.list.setObjectName("demo_list")
        self.list.setToolTip("The demonstrations: pick one, then Compute and Play")
        self.list.setFixedWidth(190)
        for name in VIEWS:
            item = QListWidgetItem(TITLES[name])
            item.setData(Qt.ItemDataRole.UserRole, name)
            item.setToolTip(DEMOS.get(name).description)
            self.list.addItem(item)
        # presentation mode: the list gives its width to the plots; this one-line chooser replaces it
        self.chooser = QComboBox()
        self.chooser.setObjectName("demo_chooser")
        self.chooser.setToolTip("The demonstration shown")
        for name in VIEWS:
            self.chooser.addItem(TITLES[name], name)
        self.chooser.setVisible(False)
        self.chooser.currentIndexChanged.connect(lambda i: self.open(self.chooser.itemData(i)))
        self.stack = QStackedWidget()
        right = QVBoxLayout()
        right.setContentsMargins(0, 0, 0, 0)
        right.addWidget(self.chooser, 0, Qt.AlignmentFlag.AlignLeft)
        right.addWidget(self.stack, 1)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(self.list)
        layout.addLayout(right, 1)
        self.list.currentItemChanged.connect(self._chosen)
        self.list.setCurrentRow(0)
        # The tab widget is as wide as its widest page's minimum: without this the lab (which hides the settings
        # panel and so gets the whole width) would make the window too wide for 1024×768 beside the settings.
        self.setMinimumWidth(600)

    def _chosen(self, item: QListWidgetItem | None, _previous: Any = None) -> None:
        if item is not None:
            self.open(item.data(Qt.ItemDataRole.UserRole))

    def open(self, name: str) -> DemoView:
        """Show the view of demo ``name`` (built the first time)."""
        view = self.views.get(name)
        if view is None:
            view = VIEWS[name](self.session)
            wheel_guard.guard_tree(view)
            view.setObjectName(f"demo_{name}")
            view.short_title = TITLES[name]
            self.views[name] = view
            self.stack.addWidget(view)  # first: presentation sizes the view's columns from its window's width
            if self.presentation:
                view.set_presentation(True)
        self.stack.setCurrentWidget(view)
        row = list(VIEWS).index(name)
        if self.list.currentRow() != row:
            self.list.setCurrentRow(row)
        if self.chooser.currentIndex() != row:
            self.chooser.blockSignals(True)
            self.chooser.setCurrentIndex(row)
            self.chooser.blockSignals(False)
        return view

    def theme_changed(self) -> None:
        """The theme changed: every built view restyles itself (``DemoView.theme_changed``)."""
        for view in self.views.values():
            view.theme_changed()

    def set_presentation(self, on: bool) -> None:
        """Large fonts, thick lines, high contrast and only the basic controls, in every demo view; the demo
        list gives way to a one-line chooser; sizes follow the screen's height."""
        self.presentation = bool(on)
        screen = self.screen()
        if on:  # full screen: the screen's height (the window's, for a window larger than an offscreen screen)
            style.set_scale(style.scale_for(max(self.window().height(),
                                                screen.geometry().height() if screen is not None else 0)))
        self.list.setVisible(not on)
        self.chooser.setVisible(on)
        font = QFont(self.chooser.font())
        font.setPointSize(round(14 * style.scale()) if on else self.list.font().pointSize())
        self.chooser.setFont(font)
        for view in self.views.values():
            view.set_presentation(on)
