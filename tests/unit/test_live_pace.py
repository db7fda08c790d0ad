"""The live pace of the curves view (gui/plots/live_pace.py): a few runs drawn at every tick, many at a pace that
keeps the last draw's GUI-thread cost to BUDGET of the time, within MIN_S … MAX_S."""

from __future__ import annotations

import pytest

from studio.gui.plots import live_pace
from studio.gui.plots.live_pace import LivePace


class Clocks:
    def __init__(self) -> None:
        self.wall = 100.0
        self.cpu = 5.0


def paced(clocks: Clocks) -> LivePace:
    return LivePace(clock=lambda: clocks.wall, cpu=lambda: clocks.cpu)


def test_a_few_runs_are_drawn_at_every_tick() -> None:
    clocks = Clocks()
    pace = paced(clocks)
    pace.started(live_pace.FEW_RUNS)
    clocks.cpu += 0.5  # however dear the draw
    pace.painted()
    assert pace.due(live_pace.FEW_RUNS) and pace.due(1)


def test_many_runs_wait_until_the_last_draw_is_its_budget_of_the_time() -> None:
    clocks = Clocks()
    pace = paced(clocks)
    runs = live_pace.FEW_RUNS + 1
    assert pace.due(runs)  # the first draw at once
    pace.started(runs)
    clocks.wall += 0.02
    clocks.cpu += 0.03  # the draw and its paint: 30 ms of the GUI thread
    pace.painted()
    assert pace.last_cost_s == pytest.approx(0.03)
    wait = 0.03 / live_pace.BUDGET
    clocks.wall = 100.0 + wait - 0.01
    assert not pace.due(runs) and pace.due(live_pace.FEW_RUNS)  # fewer runs shown again: at once
    assert pace.wait_s(runs) == pytest.approx(0.01) and pace.wait_s(live_pace.FEW_RUNS) == 0
    clocks.wall = 100.0 + wait + 1e-9
    assert pace.due(runs)


@pytest.mark.parametrize(("cost", "wait"), [(1e-5, live_pace.MIN_S), (10.0, live_pace.MAX_S)])
def test_the_wait_stays_within_its_bounds(cost: float, wait: float) -> None:
    clocks = Clocks()
    pace = paced(clocks)
    pace.started(50)
    clocks.cpu += cost
    pace.painted()
    clocks.wall = 100.0 + wait - 1e-3
    assert not pace.due(50)
    clocks.wall = 100.0 + wait + 1e-9
    assert pace.due(50)


def test_only_the_first_paint_after_a_paced_draw_counts() -> None:
    clocks = Clocks()
    pace = paced(clocks)
    pace.started(50)
    clocks.cpu += 0.01
    pace.painted()
    clocks.cpu += 1.0  # a later paint (a zoom, a resize): not the draw's cost
    pace.painted()
    assert pace.last_cost_s == pytest.approx(0.01)
