"""The Search view's plots (pyqtgraph) over a study report (``core/search/report.report_of``): the optimisation
history (each trial's value, the best so far as a line, pruned trials at their last reported value), each
setting's importance by fANOVA as bars, and a slice (the objective against one setting, log where it is searched
on a log scale). Optuna's own plotly/matplotlib plots are not used (no GUI dependency)."""

from __future__ import annotations

import math
from typing import Any

import pyqtgraph as pg

from studio.core.runs.compare import make_axis
from studio.gui.plots.axes import plain_numbers
from studio.gui.plots.empty_hint import EmptyHint
from studio.gui.plots.log_axis import LogAxis
from studio.gui.plots.palette import OKABE_ITO

COMPLETE, PRUNED, BEST = OKABE_ITO[0], "#9a9a9a", OKABE_ITO[3]
NO_STUDY = "No search yet: run one with  studio search --space 'optimizer.lr=1e-4..1e-1:log' --trials 20"


def plot_widget(title: str, x_label: str, y_label: str) -> tuple[pg.PlotWidget, EmptyHint]:
    """A titled plot with plain-number axes and the hint it shows while empty."""
    widget = pg.PlotWidget(axisItems={"left": LogAxis("left"), "bottom": LogAxis("bottom")})
    item = widget.getPlotItem()
    item.setTitle(title)
    item.setLabel("bottom", x_label)
    item.setLabel("left", y_label)
    item.showGrid(x=True, y=True, alpha=0.25)
    for name in ("left", "bottom"):
        plain_numbers(item.getAxis(name))
    return widget, EmptyHint(widget, NO_STUDY)


def last_reported(row: dict[str, Any]) -> float | None:
    """A pruned trial's last reported value (what it was stopped at)."""
    values = [v for v in row.get("reported", {}).values() if v is not None]
    return values[-1] if values else None


def draw_history(widget: pg.PlotWidget, hint: EmptyHint, report: dict[str, Any]) -> None:
    """Each complete trial's value by trial number, pruned trials in grey at their last reported value, and the
    best so far as a line."""
    widget.clear()
    rows = report["trials"]
    done = [(r["number"], r["value"]) for r in rows if r["state"] == "complete" and r["value"] is not None]
    pruned = [(r["number"], last_reported(r)) for r in rows if r["state"] == "pruned"]
    pruned = [(n, v) for n, v in pruned if v is not None]
    if not done and not pruned:
        hint.show_hint("No trial has finished yet: the history fills in as trials end")
        return
    hint.hide_hint()
    item = widget.getPlotItem()
    item.setLabel("left", report["metric"])
    best = [(r["number"], b) for r, b in zip(rows, report["history"], strict=True) if b is not None]
    if best:
        widget.plot([n for n, _ in best], [b for _, b in best], pen=pg.mkPen(BEST, width=2), stepMode=None,
                    name="best so far")
    if done:
        widget.plot([n for n, _ in done], [v for _, v in done], pen=None, symbol="o", symbolSize=8,
                    symbolBrush=COMPLETE, symbolPen=COMPLETE, name="complete")
    if pruned:
        widget.plot([n for n, _ in pruned], [v for _, v in pruned], pen=None, symbol="x", symbolSize=9,
                    symbolBrush=PRUNED, symbolPen=PRUNED, name="pruned (last value)")
    widget.autoRange()


def draw_importances(widget: pg.PlotWidget, hint: EmptyHint, report: dict[str, Any]) -> None:
    """One horizontal bar per searched setting: its share of the objective's variance (fANOVA), largest on top."""
    widget.clear()
    found: dict[str, float] = report.get("importances") or {}
    if not found:
        hint.show_hint(report.get("importance_note") or "No importances yet")
        return
    hint.hide_hint()
    names = sorted(found, key=lambda k: found[k])  # the largest at the top (y grows upwards)
    widget.addItem(pg.BarGraphItem(x0=0, y=list(range(len(names))), height=0.6, width=[found[k] for k in names],
                                   brush=COMPLETE, pen=None))
    axis = widget.getPlotItem().getAxis("left")
    axis.setTicks([[(i, k) for i, k in enumerate(names)]])
    widget.setXRange(0, max(1e-9, max(found.values())) * 1.05)
    widget.setYRange(-0.6, len(names) - 0.4)


def slice_points(report: dict[str, Any], key: str) -> tuple[list[float], list[float], list[tuple[float, str]] | None,
                                                            bool]:
    """The complete trials' (setting, value) for a slice of ``key``: numbers as they are (log where searched on a
    log scale), anything else as evenly spaced categories with their ticks."""
    rows = [r for r in report["trials"] if r["state"] == "complete" and r["value"] is not None and key in r["params"]]
    xs = [r["params"][key] for r in rows]
    ys = [float(r["value"]) for r in rows]
    numeric = all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in xs)
    if numeric:
        return [float(x) for x in xs], ys, None, key in report.get("log_keys", [])
    axis = make_axis(key, xs)
    return [p if p is not None else math.nan for p in axis.positions], ys, axis.ticks, False


def draw_slice(widget: pg.PlotWidget, hint: EmptyHint, report: dict[str, Any], key: str) -> None:
    """The objective against setting ``key`` over the complete trials."""
    widget.clear()
    xs, ys, ticks, log = slice_points(report, key) if key else ([], [], None, False)
    item = widget.getPlotItem()
    item.setLogMode(x=log)
    item.getAxis("bottom").setTicks([ticks] if ticks else None)
    if not xs:
        hint.show_hint("No complete trial yet: the slice fills in as trials end")
        return
    hint.hide_hint()
    item.setLabel("bottom", key + (" (log)" if log else ""))
    item.setLabel("left", report["metric"])
    widget.plot(xs, ys, pen=None, symbol="o", symbolSize=8, symbolBrush=COMPLETE, symbolPen=COMPLETE)
    widget.autoRange()
