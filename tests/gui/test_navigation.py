"""Issue 22 point 6: the navigation lists every page in groups, one click each, and fits 1024×768 without
scrolling; a new TabSpec gets its button without code; Compression's columns are not clipped."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import QApplication, QLabel

from studio.core.runs.store import RunStore
from studio.gui.app import pages
from studio.gui.app.main_window import MainWindow
from studio.gui.tabs import EXTRA_TABS, GROUPS, TabSpec, grouped
from tests.gui.conftest import new_session


def page_ids(window: MainWindow) -> list[str]:
    return ["training", *[spec.id for spec in pages.EXTRA_TABS]]


def test_every_page_is_one_click_away_at_1024x768(qtbot, window):
    window.showNormal()
    window.resize(1024, 768)
    qtbot.waitUntil(lambda: window.width() <= 1024)
    assert not window.tabs.tabBar().isVisible()  # the scrolling tab bar is gone
    frame = window.rect()
    nav = window.navigation
    assert nav.height() <= 2 * (max(b.sizeHint().height() for b in nav.buttons.values()) + 8)  # at most 2 rows
    for index, page in enumerate(page_ids(window)):
        button = nav.buttons[page]
        rect = QRect(button.mapTo(window, QPoint(0, 0)), button.size())
        assert button.isVisible() and frame.contains(rect), (page, rect)
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
        assert window.tabs.currentIndex() == index, page
        assert button.isChecked() and nav.current() == index
        if index:  # the page is the real tab, built on its first view
            assert not isinstance(window.tabs.currentWidget(), pages.TabPlaceholder)
    # the window's own calls keep the navigation in step
    window.tabs.setCurrentWidget(window.pages.tab("compare"))
    assert nav.buttons["compare"].isChecked()


def test_buttons_are_grouped_in_the_registry_order():
    groups = [g for g, _ in grouped(EXTRA_TABS)]
    assert groups == [g for g in GROUPS if g in groups]
    assert {spec.group for spec in EXTRA_TABS} <= set(GROUPS)
    assert TabSpec("x", "X", "m:C").group == "Analysis"  # a new tab needs no group to be listed


def test_a_new_tab_spec_gets_its_button_without_code(qtbot, monkeypatch):
    extra = (*EXTRA_TABS, TabSpec("histograms", "Histograms", "studio.gui.tabs.queue:QueueTab"),
             TabSpec("odd", "Odd one", "studio.gui.tabs.queue:QueueTab", group="Elsewhere"))
    monkeypatch.setattr(pages, "EXTRA_TABS", extra)
    session = new_session(RunStore())
    window = MainWindow(session, probe_backend=False)
    qtbot.addWidget(window)
    try:
        window.resize(1024, 768)
        window.show()
        for page in ("histograms", "odd"):
            button = window.navigation.buttons[page]
            qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
            assert window.tabs.tabText(window.tabs.currentIndex()) == button.text()
        assert window.navigation.group_of["histograms"] == "Analysis"
        assert window.navigation.group_of["odd"] == "Elsewhere"
        captions = [w.text() for w in window.navigation.findChildren(QLabel, "nav_caption")]
        assert captions[-1] == "Elsewhere" and captions.count("Elsewhere") == 1
        assert window.pages.tab("histograms") is window.pages.tab("Histograms")  # MainWindow.tab(id or title) as before
        assert type(window.pages.tab("histograms")).__name__ == "QueueTab"
    finally:
        session.shutdown(wait_s=10)


def test_compression_columns_are_not_clipped_at_1024(qtbot, window):
    window.showNormal()
    window.resize(1024, 768)
    tab = window.pages.tab("compression")
    window.tabs.setCurrentWidget(tab)
    assert window.settings.isHidden()  # the tab takes the settings panel's width
    before = {"test_acc": 0.8565, "bytes": 2_400_000, "gzip_bytes": 2_100_000, "params": 669_706,
              "nonzero_params": 669_706, "sparsity": 0.0, "latency_ms": 0.412, "batch256_ms": 12.5}
    after = {**before, "test_acc": 0.8512, "bytes": 620_000, "gzip_bytes": 330_000, "nonzero_params": 334_853,
             "sparsity": 0.5, "latency_ms": 0.388, "batch256_ms": 11.93}
    tab.show_entry({"before": before, "after": after, "prune": 0.5, "structured": True, "fine_tune_steps": 200,
                    "method": "dynamic"})
    for _ in range(5):
        QApplication.processEvents()
    table, header = tab.table, tab.table.horizontalHeader()
    metrics = header.fontMetrics()
    for c in range(table.columnCount()):
        text = table.horizontalHeaderItem(c).text()
        assert header.sectionSize(c) >= metrics.horizontalAdvance(text), text
        for r in range(table.rowCount()):  # no cell is cut with "…"
            cell = table.item(r, c).text()
            assert header.sectionSize(c) >= table.fontMetrics().horizontalAdvance(cell), (r, c, cell)
    assert header.length() <= table.viewport().width() + 1  # every column in view: "after" and "change" too
    assert not table.horizontalScrollBar().isVisible()
    assert "pruned 50% (structured)" in tab.after_what.text() and "int8 dynamic" in tab.after_what.text()
