"""How often the curves view draws live points: at once among a few runs, paced among many (Qt-free).

Watching a run train beside a few others, its new points are drawn at the view's ~30 Hz tick. With more than
``FEW_RUNS`` runs shown (a sweep followed), every draw repaints four plots of hundreds of lines, whose axes and
grids replay their pictures: 30–60 ms of the GUI thread a draw at 50 runs, and the points of 50 runs logging a
step a second each, drawn as they came, took over half of the GUI thread (issue 40 asks ≤ 10 ms a second). The
next draw then waits until the last one's cost (the redraw and the paint that showed it, GUI-thread CPU) is
``BUDGET`` of the time since it began, at least ``MIN_S`` and at most ``MAX_S`` later. TensorBoard reloads every
30 s; a sweep followed here moves every few seconds (a draw of 50 runs × 4 curves of 20k steps costs ~30 ms, so
every ~6 s at 0.5 %: the rest of the ≤ 10 ms is taking the rows in, ~3 ms a second). A person's own action
(selection, x axis, smoothing, zoom) is never paced.
"""

from __future__ import annotations

import time
from collections.abc import Callable

FEW_RUNS = 8  # up to this many runs shown: live points drawn at every tick (a class comparing optimizers)
BUDGET = 0.005  # the share of the GUI thread live drawing may take while following a sweep
MIN_S = 0.033
MAX_S = 10.0


class LivePace:
    """``due(runs)``: may live points be drawn now, ``runs`` runs shown; ``started(runs)`` when they are;
    ``painted()`` after each paint of the plots (the first after a paced draw closes its cost)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic,
                 cpu: Callable[[], float] = time.thread_time) -> None:
        self._clock = clock
        self._cpu = cpu
        self._next = 0.0  # when the next paced draw may start
        self._began: tuple[float, float] | None = None  # (clock, cpu) at a paced draw not yet painted
        self.last_cost_s = 0.0

    def due(self, runs: int) -> bool:
        return runs <= FEW_RUNS or self._clock() >= self._next

    def wait_s(self, runs: int) -> float:
        """Seconds until live points may be drawn (0 now)."""
        return 0.0 if runs <= FEW_RUNS else max(0.0, self._next - self._clock())

    def started(self, runs: int) -> None:
        self._began = (self._clock(), self._cpu()) if runs > FEW_RUNS else None

    def painted(self) -> None:
        if self._began is None:
            return
        at, cpu = self._began
        self._began = None
        self.last_cost_s = max(0.0, self._cpu() - cpu)
        self._next = at + min(MAX_S, max(MIN_S, self.last_cost_s / BUDGET))
