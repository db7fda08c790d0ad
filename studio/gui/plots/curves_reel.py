"""The training curves as a reel for recordings (``widgets/reel.py``): the runs' metrics growing step by step, in
an off-screen copy of the Curves view (its colour key above the plots, its controls left out), the last frame
being the whole runs. The view on screen is left as it was."""

from __future__ import annotations

from typing import Any

import numpy as np
from PySide6.QtWidgets import QWidget

from studio.gui.plots.curves import CurvesView

FRAMES = 60


class CurvesReel:
    """``CurvesReel(data, labels)``: ``data`` is ``run_id → metric → (steps, values[, walls])``, as
    ``RunStore.metrics`` gives it."""

    rate = 15.0

    def __init__(self, data: dict[str, dict[str, tuple]], labels: dict[str, str], presentation: bool = True,
                 frames: int = FRAMES) -> None:
        self.data = {r: {k: tuple(np.asarray(a) for a in v) for k, v in m.items()} for r, m in data.items() if m}
        self.labels = labels
        last = max((float(np.max(v[0])) for m in self.data.values() for v in m.values() if len(v[0])), default=0.0)
        self.cuts = [last * (i + 1) / frames for i in range(frames)] if last > 0 else []
        self.view = CurvesView()
        self.view.ticking = False  # drawn when a frame asks, not on a timer
        bar = self.view.controls_bar
        for i in range(bar.count()):  # the controls row: not in a recording
            item = bar.itemAt(i)
            control = item.widget() if item is not None else None
            if control is not None:
                control.hide()
        if presentation:
            self.view.set_presentation(True)
        self.widget: QWidget = self.view
        self.step = 0.0

    def count(self) -> int:
        return len(self.cuts)

    def show(self, index: int) -> None:
        self.step = self.cuts[index]
        shown: dict[str, dict[str, tuple]] = {}
        for run_id, metrics in self.data.items():
            shown[run_id] = {name: tuple(a[: int(np.searchsorted(series[0], self.step, side="right"))]
                                         for a in series) for name, series in metrics.items()}
        self.view.show_runs(shown, self.labels)
        self.view.wait_drawn()
        self.view.redraw()

    def caption(self) -> str:
        names = ", ".join(self.labels.get(r, r) for r in self.data)
        return f"{names} — step {self.step:,.0f}"


def reel_of_runs(store: Any, run_ids: list[str], labels: dict[str, str], presentation: bool = True) -> CurvesReel:
    """The selected runs' curves from ``store`` (MovieError when none has logged anything yet)."""
    from studio.gui.widgets.movie_file import MovieError

    data = {r: store.metrics(r) for r in run_ids}
    reel = CurvesReel(data, labels, presentation)
    if not reel.count():
        raise MovieError("select runs that have logged metrics first")
    return reel
