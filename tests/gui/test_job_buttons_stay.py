"""Issue 33.5: Run and Cancel never move under the pointer. On every page that runs a job (each tab, each page of
the Parallelism lab, each Teaching-lab demo, each paper-check button) Run is clicked with the Session's start
replaced by a fake job, which then reports progress with a long text and fails with a long message: the buttons'
places on the window are recorded before, after the progress and after the failure, at 1024×768 (the narrowest
columns, where a status line wraps most)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication, QWidget

from studio.gui.demos.lab import VIEWS
from studio.gui.tabs import EXTRA_TABS
from studio.gui.tabs.parallel_lab import PAGES
from studio.gui.widgets.job_panel import JobPanel
from tests.gui.test_job_panel import FakeHandle

PROGRESS = "mode async: 120 of 300 updates applied, the straggler 40 behind — about 12 s left"
FAILURE = ("the rank 2 process ended without a word: it was killed by signal 9 (out of memory?); the last lines "
           "of its stderr are in logs/rank2.stderr, and the run record keeps them for the run list")


def settle() -> None:
    for _ in range(3):  # posted layout requests, then the geometry they set
        QApplication.processEvents()


class Handle(FakeHandle):
    """A fake job that also takes what a live demo sends a running job."""

    def set_params(self, values: dict[str, Any]) -> None:
        pass

    def send(self, command: str) -> None:
        pass


class FakeJobs:
    """Session.start's stand-in: every request becomes a fake job the test drives."""

    def __init__(self) -> None:
        self.handles: list[Handle] = []

    def start(self, _request: Any) -> Handle:
        self.handles.append(Handle())
        return self.handles[-1]


def places(window: QWidget, panel: JobPanel) -> dict[str, tuple]:
    out = {}
    for name in ("run_button", "cancel_button"):
        button = getattr(panel, name)
        if button.isVisible():
            out[name] = (*button.mapTo(window, QPoint(0, 0)).toTuple(), button.width(), button.height())
    return out


def pages(window: Any) -> Iterator[tuple[str, QWidget]]:
    """Every page that may hold a job panel, each shown when it is yielded: the tabs, the lab's pages, the
    demos."""
    for spec in EXTRA_TABS:
        tab = window.pages.tab(spec.id)
        window.tabs.setCurrentWidget(tab)
        if spec.id == "parallel_lab":
            for page in PAGES:
                yield f"{spec.id}/{page.id}", tab.page(page.id)
        elif spec.id == "teaching_lab":
            for name in VIEWS:
                yield f"{spec.id}/{name}", tab.open(name)
        else:
            yield spec.id, tab


def test_run_and_cancel_keep_their_place_on_every_page(qtbot, window, monkeypatch):
    jobs = FakeJobs()
    monkeypatch.setattr(window.session, "start", jobs.start)
    window.resize(1024, 768)
    checked, moved = [], []
    for name, page in pages(window):
        settle()
        for panel in [p for p in page.findChildren(JobPanel) if p.isVisible()]:
            before = places(window, panel)
            started = len(jobs.handles)
            qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
            settle()
            seen = {"after Run": places(window, panel)}
            if len(jobs.handles) > started and panel.busy:
                handle = jobs.handles[-1]
                handle.progress.emit(0.4, PROGRESS, None)
                settle()
                seen["after progress"] = places(window, panel)
                handle.end("failed", FAILURE)
                settle()
                seen["after the failure"] = places(window, panel)
                assert FAILURE.split(":")[0] in panel.status.text() or panel.error == FAILURE, name
            checked.append((name, panel.run_button.text(), list(seen)))
            moved += [f"{name} ({panel.run_button.text()!r}) {when}: {before} → {now}"
                      for when, now in seen.items() if now != before]
    assert not moved, "\n".join(moved)
    assert len(checked) >= len(EXTRA_TABS) + len(PAGES) + len(VIEWS) - 2  # every page had one (or more)
    failed = [c for c in checked if "after the failure" in c[2]]
    assert len(failed) >= len(checked) // 2  # most Run buttons really started (a fake) job


@pytest.mark.parametrize("lines", [1, 2, 4])
def test_the_status_line_reserves_its_lines_and_scrolls_the_rest(qtbot, lines):
    panel = JobPanel("Run", status_lines=lines)
    qtbot.addWidget(panel)
    panel.resize(240, 200)
    panel.show()
    qtbot.waitExposed(panel)
    empty = panel.status_area.height()
    assert empty >= lines * panel.status.fontMetrics().lineSpacing()
    panel.show_status(FAILURE, error=True)
    settle()
    assert panel.status_area.height() == empty  # a long text does not grow it …
    assert panel.status_area.verticalScrollBar().maximum() > 0  # … it scrolls in it
    assert panel.status.toolTip() == FAILURE  # and the whole is one hover away


def test_a_long_failure_gets_three_lines_in_the_narrow_columns(qtbot, window, monkeypatch):
    """Issue 33: the demo views and the modes page kept two lines, where the Async SGD page has three; a failure's
    sentence in their narrow column at 1024×768 was cut after two (the rest one scroll away). A status line as wide
    as a page keeps two."""
    jobs = FakeJobs()
    monkeypatch.setattr(window.session, "start", jobs.start)
    window.resize(1024, 768)
    short: list[str] = []
    narrow = 0
    for name, page in pages(window):
        if not name.startswith(("teaching_lab/", "parallel_lab/")):
            continue
        settle()
        for panel in [p for p in page.findChildren(JobPanel) if p.isVisible()]:
            qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
            settle()
            if panel.busy:
                jobs.handles[-1].end("failed", FAILURE)
                settle()
            if panel.status_area.width() >= NARROW_PX:
                continue
            narrow += 1
            shown = panel.status_area.height() // panel.status.fontMetrics().lineSpacing()
            if shown < 3:
                short.append(f"{name} ({panel.run_button.text()!r}): {shown} lines")
    assert not short, short
    assert narrow >= 10  # the demos' panels and paper checks, the lab's narrow pages


NARROW_PX = 400  # a status line narrower than this is a column's (at 1024×768 the demos' is ~300 px)
