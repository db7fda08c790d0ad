"""Drives the Parallelism lab's "Ring all-reduce" and "DLRM hybrid" pages in Studio's real main window on the xcb
platform with real input (xdotool through the X server): a click on the lab's navigation button, a click on the
page's tab, a click on Run; the real job runs (rank processes and all); when the result is drawn the screen is
grabbed from the X server in the light and the dark theme. Prints one JSON line: per page the status line, the
controls outside the window and the legends off their plots.

    python -m tests.gui.lab_pages_driver WIDTHxHEIGHT SHOT_DIR [ring] [dlrm]
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from PySide6.QtGui import QGuiApplication
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QTabBar, QWidget

from tests.gui.real_window_driver import centre, open_window, settle, xdotool
from tests.gui.test_layout_fit import misplaced_controls, stray_legends

TITLES = {"ring": "Ring all-reduce", "dlrm": "DLRM hybrid"}


def click(widget: QWidget) -> None:
    point = centre(widget)
    xdotool("mousemove", "--sync", point.x(), point.y(), "click", "1")
    settle(300)


def click_tab(bar: QTabBar, title: str) -> None:
    index = next(i for i in range(bar.count()) if bar.tabText(i) == title)
    point = bar.mapToGlobal(bar.tabRect(index).center())
    xdotool("mousemove", "--sync", point.x(), point.y(), "click", "1")
    settle(600)


def run_page(window: Any, page_id: str, shots: Path, tag: str, timeout: float = 600) -> dict[str, Any]:
    lab = window.pages.tab("parallel_lab")
    click_tab(lab.pages.tabBar(), TITLES[page_id])
    page = lab.page(page_id)
    assert lab.pages.currentWidget().isAncestorOf(page), "the clicked tab is not the page"
    click(page.panel.run_button)
    deadline = time.monotonic() + timeout
    while page.result is None and page.panel.error is None and time.monotonic() < deadline:
        QTest.qWait(200)
    settle(800)
    out: dict[str, Any] = {"status": page.panel.status.text(), "error": page.panel.error,
                           "shown": page.result is not None}
    for theme in ("light", "dark"):
        window.themes.apply(theme, save=False)
        settle(600)
        QGuiApplication.primaryScreen().grabWindow(0).save(str(shots / f"{page_id}-{tag}-{theme}.png"))
        out[f"problems_{theme}"] = misplaced_controls(window) + stray_legends(window)
    window.themes.apply("light", save=False)
    return out


def main(argv: list[str]) -> int:
    size, shots = argv[0], Path(argv[1])
    shots.mkdir(parents=True, exist_ok=True)
    pages = argv[2:] or ["ring", "dlrm"]
    _app, window = open_window(size)
    result: dict[str, Any] = {}
    try:
        click(window.navigation.buttons["parallel_lab"])
        for page_id in pages:
            result[page_id] = run_page(window, page_id, shots, size)
    finally:
        window.close()
        window.session.shutdown(wait_s=10)
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
