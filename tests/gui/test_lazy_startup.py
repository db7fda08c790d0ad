"""Start-up stays light: the window shows without torch, cuda.bindings, pyqtgraph, the extra tabs' modules or a
dataset read; the curves follow by themselves (in the theme's colours, still without cuda.bindings); a tab is built
the first time it is shown."""

import subprocess
import sys

from studio.gui.app.pages import TabPlaceholder
from studio.gui.tabs import EXTRA_TABS

PROBE = r"""
import sys
reads = []
sys.addaudithook(lambda event, args: reads.append(str(args[0])) if event == "open" and args
                 and str(args[0]).endswith((".npz", "-ubyte", "-ubyte.gz")) else None)
from PySide6.QtWidgets import QApplication
app = QApplication([])
import studio.app  # as ``studio``: its entry module, the engine's port and the window's modules
studio.app.immune_to_working_folder()
from studio.engine.port import engine
from studio.gui.app.main_window import MainWindow
from studio.gui.session.session import Session
from studio.gui.tabs import EXTRA_TABS
win = MainWindow(Session(engine=engine()), probe_backend=False)
win.show()
plots_at_show = "pyqtgraph" in sys.modules  # the curves (pyqtgraph) come just after the window shows
# nor what only a job, a command or the curves need (each cost the window's start-up tens of milliseconds)
early = [m for m in ("numpy", "multiprocessing", "email", "importlib.metadata", "studio.cli", "studio.engine.jobs",
                     "studio.core.contracts.jobs", "uuid", "difflib") if m in sys.modules]
import time
deadline = time.monotonic() + 60
while win.curves_pane.view is None and time.monotonic() < deadline:
    app.processEvents()
    time.sleep(0.01)
import pyqtgraph as pg
from studio.gui.session import theme
coloured = pg.getConfigOption("background") == theme.PLOT_COLOURS[theme._current].background
heavy = [m for m in sys.modules if m.split(".")[0] == "torch" or m.startswith("cuda.bindings")]
tabs = [t.target.split(":")[0] for t in EXTRA_TABS if t.target.split(":")[0] in sys.modules]
print(heavy, tabs, reads, plots_at_show, early, win.curves_pane.view, coloured, flush=True)
import os
ok = (not heavy and not tabs and not reads and not plots_at_show and not early and win.curves_pane.view is not None
      and coloured)
os._exit(0 if ok else 1)  # skip teardown: the session's threads are live
"""


def test_window_shows_without_torch_cuda_tab_modules_or_a_dataset_read(tmp_path):
    env = {"QT_QPA_PLATFORM": "offscreen", "PATH": "/usr/bin:/bin", "STUDIO_HOME": str(tmp_path),
           "PYTHONPATH": ":".join(p for p in sys.path if p)}
    done = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]  # prints: heavy modules, tab modules, reads


def test_a_tab_is_built_on_first_view_and_keeps_its_place(window):
    titles = [window.tabs.tabText(i) for i in range(window.tabs.count())]
    assert all(isinstance(window.tabs.widget(i), TabPlaceholder) for i in range(1, window.tabs.count()))
    data_index = titles.index("Data")
    window.tabs.setCurrentIndex(data_index)
    built = window.tabs.widget(data_index)
    assert type(built).__name__ == "DataPreview" and window.tabs.currentIndex() == data_index
    assert window.pages.tab("Data") is built  # asked again: the same widget, not a second one
    assert [window.tabs.tabText(i) for i in range(window.tabs.count())] == titles
    assert window.tabs.tabToolTip(data_index) == "The Data tab"
    other = window.pages.tab("Compare")  # built on demand without switching to it
    assert window.tabs.currentIndex() == data_index and not isinstance(other, TabPlaceholder)
    assert len(titles) == 1 + len(EXTRA_TABS)


def test_a_window_closed_before_its_curves_are_built_leaves_no_timer_behind(qtbot):
    """The curves' timer (CURVES_AFTER_MS) dies with the window: deleting a just-shown window raises nothing later."""
    from studio.core.runs.store import RunStore
    from studio.gui.app.curves_pane import CURVES_AFTER_MS
    from studio.gui.app.main_window import MainWindow
    from tests.gui.conftest import new_session

    session = new_session(RunStore())
    win = MainWindow(session, probe_backend=False)
    win.show()
    assert win.curves_pane.view is None
    win.deleteLater()
    qtbot.wait(CURVES_AFTER_MS * 5)  # an exception in the event loop fails this test (pytest-qt)
    session.shutdown(wait_s=5)


def test_the_curves_build_by_themselves_after_the_window_shows(qtbot):
    from studio.core.runs.store import RunStore
    from studio.gui.app.main_window import MainWindow
    from tests.gui.conftest import new_session

    session = new_session(RunStore())
    win = MainWindow(session, probe_backend=False)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitUntil(lambda: win.curves_pane.view is not None, timeout=30_000)
    assert win.curves_pane.curves.parent() is win.curves_pane
    # a widget added to a shown parent's layout is shown by a queued call (QLayout::addChildWidget): under load
    # that call may come after the poll that saw the curves built
    qtbot.waitUntil(win.curves_pane.curves.isVisible, timeout=5_000)
    session.shutdown(wait_s=5)
