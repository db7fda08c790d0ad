"""The window's pages: the Training page first, then every extra tab (``gui/tabs.EXTRA_TABS``) as a placeholder
until it is first shown (or asked for: :meth:`Pages.tab`), so the window shows without importing their modules.
The tab bar is hidden: the navigation (navigation.py) lists the pages in groups, one click each."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QLabel, QTabWidget, QWidget

from studio.gui.app.navigation import Navigation
from studio.gui.tabs import EXTRA_TABS, GROUPS, TabSpec, find, grouped
from studio.gui.widgets import wheel_guard

TRAINING = "Training"


class TabPlaceholder(QWidget):
    """Stands in the tab widget for a tab not yet shown; it is replaced by the real tab on first view."""

    def __init__(self, title: str) -> None:
        super().__init__()
        self.setObjectName(f"placeholder_{title}")


class Pages(QObject):
    """``tabs`` (the page stack) and ``navigation`` (its buttons), kept in step; ``built(widget)`` when a tab is
    made, ``changed()`` when the page shown changes or a page says its use of the settings panel changed."""

    built = Signal(object)
    changed = Signal()

    def __init__(self, session: Any, training: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.tabs = QTabWidget()
        self.tabs.setObjectName("tabs")
        self.tabs.tabBar().setVisible(False)
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(training, TRAINING)
        self.tabs.setTabToolTip(0, "Live training curves and the run list")
        self.navigation = Navigation()
        self.navigation.add_page(0, "training", TRAINING, GROUPS[0], self.tabs.tabToolTip(0))
        self.specs: dict[str, TabSpec] = {spec.title: spec for spec in EXTRA_TABS}
        for spec in EXTRA_TABS:
            index = self.tabs.addTab(TabPlaceholder(spec.title), spec.title)
            self.tabs.setTabToolTip(index, f"The {spec.title} tab")
        for group, specs in grouped(EXTRA_TABS):
            for spec in specs:
                index = EXTRA_TABS.index(spec) + 1
                self.navigation.add_page(index, spec.id, spec.title, group, self.tabs.tabToolTip(index))
        self.navigation.set_current(0)
        self.navigation.page_chosen.connect(self.tabs.setCurrentIndex)
        self.tabs.currentChanged.connect(self.navigation.set_current)
        self.tabs.currentChanged.connect(self._show)

    def tab(self, key: str) -> QWidget:
        """The tab whose id (``gui/tabs.EXTRA_TABS``) or title is ``key``, built now if it has not been shown yet
        (KeyError for an unknown one)."""
        title = find(key, list(self.specs.values())).title if key != TRAINING else key
        for i in range(self.tabs.count()):
            if self.tabs.tabText(i) == title:
                return self.built_tab(i)
        raise KeyError(title)

    def widgets(self) -> list[QWidget]:
        """Every page as it is now (a placeholder for a tab not yet built)."""
        return [w for w in (self.tabs.widget(i) for i in range(self.tabs.count())) if w is not None]

    def built_tab(self, index: int) -> QWidget:
        """The tab at ``index``, built now (in its place) if a placeholder still stands there."""
        widget = self.tabs.widget(index)
        if widget is None:
            raise IndexError(f"no tab at index {index}")
        if not isinstance(widget, TabPlaceholder):
            return widget
        title, tip = self.tabs.tabText(index), self.tabs.tabToolTip(index)
        real = self._make(self.specs[title])
        wheel_guard.guard_tree(real)
        current = self.tabs.currentIndex()
        self.tabs.blockSignals(True)  # the swap is not a change of tab
        self.tabs.removeTab(index)
        self.tabs.insertTab(index, real, title)
        self.tabs.setTabToolTip(index, tip)
        self.tabs.setCurrentIndex(current)
        self.tabs.blockSignals(False)
        widget.deleteLater()
        follows = getattr(real, "settings_use_changed", None)  # a page that shows pages of its own (the lab)
        if follows is not None:
            follows.connect(self.changed)
        self.built.emit(real)
        return real

    def _show(self, index: int) -> None:
        if isinstance(self.tabs.widget(index), TabPlaceholder):
            self.built_tab(index)
        self.changed.emit()

    def _make(self, spec: TabSpec) -> QWidget:
        try:
            return spec.load()(self.session, self.tabs)
        except Exception as err:  # noqa: BLE001 - a broken tab must not take the window down
            label = QLabel(f"This tab could not be loaded: {err}")
            label.setWordWrap(True)
            return label
