"""The Parallelism lab: one tab whose pages each show one way of spreading training, measured on this machine
(``gui/parallel/``): one model four ways (data, model and pipeline parallelism on one timeline), data-parallel
scaling over process counts, a parameter server with asynchronous SGD, the input pipeline, and scheduling the
queue on a cluster. A page is built the first time it is shown, as ``Cls(session, parent)``; no torch at import
time."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QLabel, QTabWidget, QVBoxLayout, QWidget

from studio.core.targets import resolve_target


@dataclass(frozen=True)
class LabPage:
    """One page: a stable ``id``, its title and its class as ``"module:ClassName"``."""

    id: str
    title: str
    target: str

    def load(self) -> type:
        return resolve_target(self.target)


PAGES: tuple[LabPage, ...] = (
    LabPage("modes", "One model, four ways", "studio.gui.parallel.modes_page:ModesPage"),
    # the data-parallel scaling view was a tab of its own before the lab (its module stays where it was)
    LabPage("data_parallel", "Data-parallel scaling", "studio.gui.tabs.data_parallel:DataParallelTab"),
    LabPage("async", "Async SGD", "studio.gui.parallel.async_page:AsyncPage"),
    LabPage("ring", "Ring all-reduce", "studio.gui.parallel.ring_page:RingPage"),
    LabPage("dlrm", "DLRM hybrid", "studio.gui.parallel.dlrm_page:DlrmPage"),
    LabPage("dataload", "Input pipeline", "studio.gui.parallel.dataload_page:DataloadPage"),
    LabPage("schedule", "Scheduling", "studio.gui.parallel.schedule_page:SchedulePage"),
)


SETTINGS_PAGES = {"data_parallel"}  # pages that measure the current config: the training settings show beside them


class ParallelLab(QWidget):
    """The pages as inner tabs, each built on first view. The other pages have forms of their own, so the
    window's training settings show only beside the pages that use them (``SETTINGS_PAGES``): a change of page
    says so (``settings_use_changed``)."""

    settings_use_changed = Signal()

    @property
    def uses_settings_panel(self) -> bool:
        index = self.pages.currentIndex()
        return 0 <= index < len(PAGES) and PAGES[index].id in SETTINGS_PAGES

    def __init__(self, session: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.pages = QTabWidget()
        self.pages.setObjectName("parallel_pages")
        self.pages.setDocumentMode(True)
        self._built: dict[str, QWidget] = {}
        for page in PAGES:
            holder = QWidget()
            QVBoxLayout(holder).setContentsMargins(0, 0, 0, 0)
            self.pages.addTab(holder, page.title)
        if not PAGES:
            self.pages.addTab(QLabel("No pages yet."), "—")
        self.pages.currentChanged.connect(self._build)
        self.pages.currentChanged.connect(lambda _index: self.settings_use_changed.emit())
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.pages)
        self._build(self.pages.currentIndex())

    def page(self, page_id: str) -> QWidget:
        """The page ``page_id``, built if it was not yet (tests and the window's navigation use it)."""
        for i, spec in enumerate(PAGES):
            if spec.id == page_id:
                self.pages.setCurrentIndex(i)
                self._build(i)
                return self._built[page_id]
        raise KeyError(page_id)

    def _build(self, index: int) -> None:
        if not 0 <= index < len(PAGES) or PAGES[index].id in self._built:
            return
        spec = PAGES[index]
        widget = spec.load()(self.session, self)
        self._built[spec.id] = widget
        holder = self.pages.widget(index)
        layout = holder.layout() if holder is not None else None
        if layout is not None:
            layout.addWidget(widget)

    def set_presentation(self, on: bool) -> None:
        for widget in self._built.values():
            follow = getattr(widget, "set_presentation", None)
            if follow:
                follow(on)
