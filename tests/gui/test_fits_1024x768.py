"""Every tab fits a 1024×768 projector: no tab's minimum size may force the window wider or taller than that
screen (a long status line in one row once pushed the Queue tab, and so the window, past the right edge)."""

from __future__ import annotations


def test_no_tab_makes_the_window_larger_than_1024x768(qtbot, window):
    too_big = {}
    for i in range(window.tabs.count()):
        title = window.tabs.tabText(i)
        window.pages.tab(title)
        window.tabs.setCurrentIndex(i)
        qtbot.wait(10)  # the tab lays out on the next turns of Qt's event loop
        need = window.minimumSizeHint()
        if need.width() > 1024 or need.height() > 768 - 40:  # 40 px for a panel or title bar
            too_big[title] = (need.width(), need.height())
    assert window.tabs.count() >= 10 and not too_big, too_big
