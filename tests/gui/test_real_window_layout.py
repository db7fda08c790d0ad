"""Issue 22 point 6 in a real window: Studio under Xvfb at 1024×768 on the real X11 platform (xcb), clicked with
real pointer events (xdotool). Every page is reached with one click on its navigation button, the page shown is
the one clicked, nothing on it lies outside the window, its tables' column titles are not cut, and the screen
really shows something there (pixels grabbed from the X server, not a widget's idea of itself).

The window runs in a child process (this process's Qt is on the offscreen platform); it prints where each
navigation button is on screen, then reports every page it is switched to. Skips without Xvfb or xdotool unless
STUDIO_REQUIRE_XCB is set (then it fails)."""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import sys
import threading
import time

import pytest

SIZE = (1024, 768)

CHILD = r'''
import json, sys
from PySide6.QtCore import QPoint, QRect, QTimer
from PySide6.QtWidgets import QApplication, QHeaderView, QLabel
from studio.core.runs.store import RunStore
from studio.gui.app.main_window import MainWindow
from tests.gui.conftest import new_session
from tests.gui.test_layout_fit import misplaced_controls, stray_legends

app = QApplication([])
session = new_session(RunStore())
window = MainWindow(session, probe_backend=False)
window.shell.confirm_close = lambda: True
window.move(0, 0)
window.show()
window.showMaximized()  # the whole 1024×768 screen, as on a projector

def say(**what):
    print(json.dumps(what), flush=True)

def cut_titles():
    bad = []
    page = window.tabs.currentWidget()
    for header in page.findChildren(QHeaderView):
        if not header.isVisible() or header.orientation().value != 1:  # horizontal headers only
            continue
        model = header.model()
        for c in range(header.count()):
            text = str(model.headerData(c, header.orientation()) or "")
            need = header.fontMetrics().horizontalAdvance(text)
            if text and not header.isSectionHidden(c) and header.sectionSize(c) < need:
                bad.append(f"{header.parent().objectName()} column {text!r}")
    return bad

def painted(rect):
    """Distinct colours the X server shows in ``rect`` (global coordinates), sampled."""
    image = app.primaryScreen().grabWindow(0, rect.x(), rect.y(), rect.width(), rect.height()).toImage()
    return len({image.pixel(x, y) for x in range(0, image.width(), 7) for y in range(0, image.height(), 5)})

def report():
    index = window.tabs.currentIndex()
    page = window.tabs.currentWidget()
    rect = QRect(page.mapToGlobal(QPoint(0, 0)), page.size())
    hints = [painted(QRect(label.mapToGlobal(QPoint(0, 0)), label.size()))
             for label in page.findChildren(QLabel, "empty_hint") if label.isVisible()]
    say(shown=index, title=window.tabs.tabText(index), colours=painted(rect), hints=hints,
        problems=misplaced_controls(window) + stray_legends(window) + cut_titles(),
        window=[window.width(), window.height()])

def start():
    buttons = {}
    for page, button in window.navigation.buttons.items():
        centre = button.mapToGlobal(button.rect().center())
        buttons[page] = [centre.x(), centre.y(), button.text(), window.navigation.group.id(button)]
    say(buttons=buttons, screen=[app.primaryScreen().size().width(), app.primaryScreen().size().height()])
    window.tabs.currentChanged.connect(lambda _i: QTimer.singleShot(600, report))

QTimer.singleShot(1500, start)
QTimer.singleShot(int(sys.argv[1]) * 1000, app.quit)
app.exec()
session.shutdown(wait_s=5)
'''


@pytest.fixture
def xvfb_1024():
    """A fresh Xvfb screen of 1024×768 (the display name), and xdotool to click on it."""
    missing = [tool for tool in ("Xvfb", "xdotool") if not shutil.which(tool)]
    if missing:
        if os.environ.get("STUDIO_REQUIRE_XCB"):
            pytest.fail(f"STUDIO_REQUIRE_XCB is set but {', '.join(missing)} is not installed")
        pytest.skip(f"{', '.join(missing)} is not installed")
    read, write = os.pipe()
    server = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", f"{SIZE[0]}x{SIZE[1]}x24",
                               "-nolisten", "tcp"], pass_fds=(write,), stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as pipe:
        number = pipe.readline().strip()
    try:
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(10)


def lines_of(proc: subprocess.Popen) -> queue.Queue:
    out: queue.Queue = queue.Queue()

    def pump() -> None:
        for line in proc.stdout:
            if line.startswith("{"):
                out.put(json.loads(line))

    threading.Thread(target=pump, daemon=True).start()
    return out


def next_message(out: queue.Queue, key: str, timeout: float = 20) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            message = out.get(timeout=max(deadline - time.monotonic(), 0.01))
        except queue.Empty:
            break
        if key in message:
            return message
    raise AssertionError(f"the window did not report {key!r} in {timeout} s")


def test_every_page_one_click_away_and_unclipped_in_a_real_window(xvfb_1024, tmp_path):
    env = {**os.environ, "DISPLAY": xvfb_1024, "QT_QPA_PLATFORM": "xcb", "STUDIO_HOME": str(tmp_path),
           "PYTHONPATH": os.getcwd()}
    env.pop("WAYLAND_DISPLAY", None)
    proc = subprocess.Popen([sys.executable, "-c", CHILD, "60"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        out = lines_of(proc)
        start = next_message(out, "buttons", timeout=60)
        assert start["screen"] == list(SIZE)
        buttons = start["buttons"]
        assert len(buttons) >= 10 and "training" in buttons
        problems, seen_hints = {}, 0
        # Training is shown first: click another page first so that every click changes the page
        order = [page for page in buttons if page != "training"] + ["training"]
        for page in order:
            x, y, title, index = buttons[page]
            assert 0 <= x < SIZE[0] and 0 <= y < SIZE[1], f"{title}'s button is off the screen at {x}, {y}"
            subprocess.run(["xdotool", "mousemove", "--sync", str(x), str(y), "click", "1"], env=env, check=True,
                           timeout=10)
            shown = next_message(out, "shown")
            assert (shown["shown"], shown["title"]) == (index, title), f"clicked {title}, got {shown['title']}"
            assert shown["window"][0] <= SIZE[0] and shown["window"][1] <= SIZE[1], shown
            assert shown["colours"] >= 6, f"{title}: the screen shows (almost) nothing there ({shown['colours']})"
            # an empty plot shows its hint, drawn on screen (text: more than the background's colour)
            assert all(colours >= 3 for colours in shown["hints"]), (title, shown["hints"])
            seen_hints += len(shown["hints"])
            if shown["problems"]:
                problems[title] = shown["problems"]
        assert problems == {}
        assert seen_hints >= 5  # evaluation (2), compare, landscape, compression, scaling laws, data-parallel (2)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
