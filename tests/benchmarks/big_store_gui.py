"""One GUI case of the scale benchmark, in a fresh process (test_big_store_scale.py starts it):
``python tests/benchmarks/big_store_gui.py RUNS K [--interactions]`` with ``STUDIO_HOME`` the big store and
``STUDIO_BENCH_T0`` the parent's ``time.time()`` when it started this process.

It opens the real main window as ``studio`` does (theme, Session, MainWindow), then times, one after the other:
the window shown and the run list holding every run (from process start); selecting the top K runs of the list
(one selection change, as a shift-click makes) until their curves are drawn; with ``--interactions``, switching the
x axis step → wall (the combo box) and changing the smoothing 0 → 0.6 (the spin box), each until redrawn. A 10 ms
QTimer heartbeat measures the longest event-loop stall during each. "Drawn" is polled, so this works with curves
loaded on the GUI thread and with curves loaded off it: the view is not ``loading`` (an attribute only the
off-thread loader has) and every selected run's train and validation loss items hold data (for the interactions:
data that changed). Prints one line ``BENCH_RESULT {json}`` and quits (``STUDIO_BENCH_SCREENSHOT=PATH.png``: saves the
window as drawn first).
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

TIMEOUT_S = float(os.environ.get("STUDIO_BENCH_PHASE_TIMEOUT", "300"))
SETTLE_S = 0.3  # quiet time between two phases
DRAWN = ("train/loss", "val/loss")


def rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux


class Probe:
    """Runs the phases one after the other from a 10 ms heartbeat and records the longest gap between beats."""

    def __init__(self, app: Any, window: Any, runs: int, k: int, interactions: bool, t0: float) -> None:
        from PySide6.QtCore import QTimer

        self.app, self.window, self.runs, self.k, self.t0 = app, window, runs, k, t0
        self.out: dict[str, Any] = {"runs": runs, "selected": k}
        self.phases: list[tuple[str, Callable[[], None] | None, Callable[[], bool]]] = [
            ("shown", None, self.shown), ("listed", None, self.listed), ("select", self.select, self.drawn)]
        if interactions:
            self.phases += [("x_wall", self.x_wall, self.x_changed), ("smoothing", self.smooth, self.y_changed)]
        self.current: tuple[str, Callable[[], None] | None, Callable[[], bool]] | None = None
        self.started = self.last = time.perf_counter()
        self.stall = 0.0
        self.idle_since: float | None = None
        self.snapshot: dict[str, float] = {}
        self.timer = QTimer()
        self.timer.setInterval(10)
        self.timer.timeout.connect(self.tick)
        self.timer.start()

    # --- the heartbeat --------------------------------------------------------------------------
    def tick(self) -> None:
        now = time.perf_counter()
        self.stall = max(self.stall, now - self.last)
        self.last = now
        if self.current is None:
            if self.idle_since is None:
                self.idle_since = now
            if not self.phases:
                self.finish()
                return
            if self.phases[0][1] is not None and now - self.idle_since < SETTLE_S:
                return  # an action waits until the previous one has settled; what is only watched does not
            self.current = self.phases.pop(0)
            name, start, _done = self.current
            self.stall, self.started = 0.0, time.perf_counter()
            if start is not None:
                self.last = self.started
                start()
            return
        name, start, done = self.current
        if done():
            finished = time.perf_counter()
            self.out[name] = (time.time() - self.t0) if start is None else finished - self.started
            if start is not None:
                self.out[f"{name}_stall"] = self.stall
            self.out[f"{name}_rss_mb"] = rss_mb()
            self.current, self.idle_since = None, None
        elif time.perf_counter() - self.started > TIMEOUT_S:
            self.out[name] = None
            self.out["timeout"] = name
            self.phases.clear()
            self.current, self.idle_since = None, None

    def finish(self) -> None:
        self.timer.stop()
        seen = [v for k, v in self.out.items() if k.endswith("_rss_mb") and v is not None]
        self.out["peak_rss_mb"] = max([peak_rss_mb(), rss_mb(), *seen])  # ru_maxrss is updated lazily
        if shot := os.environ.get("STUDIO_BENCH_SCREENSHOT"):  # what was drawn, to look at
            self.window.grab().save(shot)
        print("BENCH_RESULT " + json.dumps(self.out), flush=True)
        self.window.close()
        self.app.quit()

    # --- what is timed ------------------------------------------------------------------------------
    def shown(self) -> bool:
        handle = self.window.windowHandle()
        return bool(self.window.isVisible() and handle is not None and handle.isExposed())

    def listed(self) -> bool:
        return self.row_count() >= self.runs

    def row_count(self) -> int:
        run_list = self.window.run_list
        if callable(getattr(run_list, "run_ids", None)):
            return len(run_list.run_ids())
        return run_list.tree.model().rowCount()

    def select(self) -> None:
        """Select the list's top K rows in one selection change (a shift-click)."""
        from PySide6.QtCore import QItemSelection, QItemSelectionModel

        _ = self.window.curves_pane.curves  # built just after the window shows; at the latest now
        tree = self.window.run_list.tree
        model = tree.model()
        selection = QItemSelection(model.index(0, 0), model.index(self.k - 1, model.columnCount() - 1))
        flags = QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
        tree.selectionModel().select(selection, flags)

    def selected(self) -> list[str]:
        return list(self.window.session.selected_runs())

    def item_data(self, run_id: str, name: str) -> tuple[np.ndarray, np.ndarray] | None:
        item = getattr(self.window.curves_pane.curves, "items", {}).get((run_id, name))
        if item is None or item.xData is None or not len(item.xData):
            return None
        return np.asarray(item.xData), np.asarray(item.yData)

    def ready(self) -> bool:
        view = self.window.curves_pane.curves
        ids = self.selected()
        return (not getattr(view, "loading", False) and len(ids) == self.k
                and all(self.item_data(r, n) is not None for r in ids for n in DRAWN))

    def drawn(self) -> bool:
        if not self.ready():
            return False
        self.out["points_drawn"] = sum(len(d[0]) for r in self.selected() for n in DRAWN
                                       if (d := self.item_data(r, n)) is not None)
        return True

    def _snap(self, axis: int) -> None:
        self.snapshot = {r: float(np.nansum(d[axis])) for r in self.selected()
                         if (d := self.item_data(r, "train/loss")) is not None}

    def _changed(self, axis: int) -> bool:
        if not self.ready():
            return False
        for run_id, before in self.snapshot.items():
            d = self.item_data(run_id, "train/loss")
            if d is None or abs(float(np.nansum(d[axis])) - before) <= 1e-9 * max(1.0, abs(before)):
                return False
        return True

    def x_wall(self) -> None:
        self._snap(0)
        box = self.window.curves_pane.curves.x_box
        box.setCurrentIndex(box.findData("wall"))

    def x_changed(self) -> bool:
        return self._changed(0)

    def smooth(self) -> None:
        self._snap(1)
        self.window.curves_pane.curves.smooth_box.setValue(0.6)

    def y_changed(self) -> bool:
        return self._changed(1)


def main(argv: list[str]) -> int:
    t0 = float(os.environ.get("STUDIO_BENCH_T0", time.time()))
    runs, k, interactions = int(argv[0]), int(argv[1]), "--interactions" in argv
    from PySide6.QtWidgets import QApplication

    app = QApplication([sys.argv[0]])
    from studio.gui.app.main_window import MainWindow
    from studio.gui.app.settings import SettingsStore
    from studio.gui.session import theme
    from tests.gui.conftest import new_session

    prefs = SettingsStore()
    theme.apply(prefs.theme, app)
    window = MainWindow(new_session(), prefs=prefs)
    window.resize(1280, 800)
    window.show()
    probe = Probe(app, window, runs, k, interactions, t0)
    app.exec()
    return 0 if "timeout" not in probe.out else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
