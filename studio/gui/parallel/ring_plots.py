"""The views of the "Ring all-reduce" page over an ``AllreduceResult``: the bytes each rank sent ÷ N against p
(the measured dots on the cost model's lines), each algorithm's time against p (the slowest rank's wall time and
the busiest rank's CPU time), one p's per-rank timeline of the phases, and the numbers."""

from __future__ import annotations

from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from studio.core.contracts.allreduce import KINDS, LABELS, size_text
from studio.gui.plots.empty_hint import EmptyHint
from studio.gui.plots.gantt import Bar, GanttPlot
from studio.gui.plots.palette import run_colour

COLOURS = {"ring": run_colour(0), "server": run_colour(3), "torch": run_colour(2)}
# the timeline's kinds (Okabe–Ito; idle a light grey that reads on both themes)
KIND_COLOURS = {"reduce-scatter": "#0072B2", "all-gather": "#56B4E9", "reduce": "#009E73", "send": "#CC79A7",
                "recv": "#E69F00", "all_reduce": "#D55E00", "idle": "#c8c8c8"}
COLUMNS = ("algorithm", "p", "N", "sent ÷ N", "model", "rank 0 ÷ N", "wall ms", "CPU ms", "error")


def _plot(name: str, title: str, x: str, y: str, hint: str) -> tuple[pg.PlotWidget, EmptyHint]:
    plot = pg.PlotWidget()
    plot.setObjectName(name)
    plot.setTitle(title, size="10pt")
    plot.setLabel("bottom", x)
    plot.setLabel("left", y)
    plot.showGrid(x=True, y=True, alpha=0.3)
    plot.getAxis("left").enableAutoSIPrefix(False)
    plot.setMinimumSize(160, 160)
    plot.addLegend(offset=(10, 10), labelTextSize="8pt", verSpacing=-6)
    return plot, EmptyHint(plot, hint)


def bytes_points(rows: list[dict[str, Any]], algorithm: str, which: str) -> list[tuple[int, float]]:
    """(p, bytes ÷ N) of every rank of every size; ``which``: "all", "rank 0" or "others"."""
    out = []
    for r in rows:
        if r["algorithm"] != algorithm or r["sent"] is None:
            continue
        picked = {"all": r["sent"], "rank 0": r["sent"][:1], "others": r["sent"][1:]}[which]
        out += [(r["ranks"], s / r["size"]) for s in picked]
    return out


class RingPlots:
    """``bytes`` and ``time`` (plots), ``timeline`` (a widget: algorithm selector and Gantt), ``table``;
    ``show(result)`` draws them all."""

    def __init__(self) -> None:
        self.bytes, self.bytes_hint = _plot(
            "ring_bytes", "Bytes each rank sent ÷ N", "processes p", "bytes ÷ N",
            "Press Run: each rank's bytes against the cost model, 2(p−1)/p·N for the ring, (p−1)·N at a server")
        self.time, self.time_hint = _plot(
            "ring_time", "Time of one all-reduce", "processes p", "ms",
            "Press Run: each algorithm's time against p — wall time of the slowest rank, CPU time of the busiest")
        self.gantt = GanttPlot(x_label="time", x_units="ms")
        self.gantt.setObjectName("ring_gantt")
        self.gantt.getPlotItem().getAxis("bottom").enableAutoSIPrefix(False)
        self.gantt.setMinimumHeight(150)
        self.gantt_hint = EmptyHint(self.gantt, "Press Run: every rank's phases of one all-reduce at the largest p "
                                                "— send and receive a chunk, add it, idle")
        self.selector = QComboBox()
        self.selector.setObjectName("ring_timeline_algorithm")
        self.selector.setToolTip("Whose timeline to draw: the ring's two phases, the server's gather and "
                                 "broadcast, or torch's all_reduce as one block")
        self.selector.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.selector.setEnabled(False)
        self.selector.currentIndexChanged.connect(self._draw_timeline)
        self.summary = QLabel("")
        self.summary.setObjectName("ring_timeline_summary")
        self.summary.setWordWrap(True)
        self.timeline = QWidget()
        top = QHBoxLayout()
        top.addWidget(QLabel("Timeline of"))
        top.addWidget(self.selector)
        top.addWidget(self.summary, 1)
        layout = QVBoxLayout(self.timeline)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.gantt, 1)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("ring_table")
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.setToolTip("One row per algorithm, p and size. sent ÷ N: the most a rank other than 0 sent; "
                              "model: the cost model's; rank 0 ÷ N: what rank 0 sent (the server's); times: the "
                              "slowest rank's wall time and the busiest rank's CPU time, medians of the repeats; "
                              "error: the largest |result − exact sum|")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.result: dict[str, Any] | None = None

    def show(self, result: dict[str, Any]) -> None:
        self.result = result
        self.show_bytes(result["rows"])
        self.show_time(result)
        self.show_table(result["rows"])
        keep = self.selector.currentData()
        self.selector.blockSignals(True)
        self.selector.clear()
        for algorithm in result["timelines"]:
            self.selector.addItem(LABELS.get(algorithm, algorithm), algorithm)
        index = self.selector.findData(keep)
        self.selector.setCurrentIndex(index if index >= 0 else 0)
        self.selector.blockSignals(False)
        self.selector.setEnabled(self.selector.count() > 0)
        self._draw_timeline(self.selector.currentIndex())

    def show_bytes(self, rows: list[dict[str, Any]]) -> None:
        plot = self.bytes
        plot.clear()
        ps = sorted({r["ranks"] for r in rows})
        counted = [r for r in rows if r["sent"] is not None]
        if not counted:
            self.bytes_hint.show_hint()
            return
        self.bytes_hint.hide_hint()
        grid = [2 + i * (max(ps) - 2) / 100 for i in range(101)] if max(ps) > 2 else [2.0]
        algorithms = {r["algorithm"] for r in counted}
        if "ring" in algorithms:
            plot.plot(grid, [2 * (p - 1) / p for p in grid], pen=pg.mkPen(COLOURS["ring"], width=2),
                      name="ring model 2(p−1)/p")
            self._dots(bytes_points(rows, "ring", "all"), COLOURS["ring"], "o", "ring, each rank")
        if "server" in algorithms:
            plot.plot(grid, [p - 1 for p in grid], pen=pg.mkPen(COLOURS["server"], width=2),
                      name="server model p−1 (rank 0)")
            plot.plot(grid, [1.0 for _ in grid], pen=pg.mkPen(COLOURS["server"], width=1.5,
                                                              style=Qt.PenStyle.DashLine), name="server's workers: 1")
            self._dots(bytes_points(rows, "server", "rank 0"), COLOURS["server"], "s", "server, rank 0")
            self._dots(bytes_points(rows, "server", "others"), COLOURS["server"], "t", "server, the others")
        plot.getAxis("bottom").setTicks([[(p, str(p)) for p in ps]])
        plot.setXRange(min(ps) - 0.3, max(ps) + 0.3, padding=0)

    def _dots(self, points: list[tuple[int, float]], colour: str, symbol: str, name: str) -> None:
        if points:
            self.bytes.plot([p for p, _ in points], [b for _, b in points], pen=None, symbol=symbol, symbolSize=9,
                            symbolBrush=colour, symbolPen=pg.mkPen("k", width=0.5), name=name)

    def show_time(self, result: dict[str, Any]) -> None:
        plot = self.time
        plot.clear()
        rows = result["rows"]
        if not rows:
            self.time_hint.show_hint()
            return
        self.time_hint.hide_hint()
        size = max(result["sizes"])
        plot.setTitle(f"Time of one all-reduce of {size_text(size)}", size="10pt")
        for algorithm in ("ring", "server", "torch"):
            mine = sorted((r for r in rows if r["algorithm"] == algorithm and r["size"] == size),
                          key=lambda r: r["ranks"])
            if not mine:
                continue
            ps = [r["ranks"] for r in mine]
            colour = COLOURS[algorithm]
            plot.plot(ps, [1000 * max(r["wall_s"]) for r in mine], pen=pg.mkPen(colour, width=2), symbol="o",
                      symbolSize=7, symbolBrush=colour, symbolPen=None, name=f"{algorithm}, wall")
            plot.plot(ps, [1000 * max(r["cpu_s"]) for r in mine], pen=pg.mkPen(colour, width=2,
                                                                              style=Qt.PenStyle.DashLine),
                      symbol="s", symbolSize=6, symbolBrush=colour, symbolPen=None, name=f"{algorithm}, CPU")
        ps = sorted({r["ranks"] for r in rows})
        plot.getAxis("bottom").setTicks([[(p, str(p)) for p in ps]])

    def show_table(self, rows: list[dict[str, Any]]) -> None:
        self.table.setRowCount(len(rows))
        for i, r in enumerate(rows):
            n = r["size"]
            if r["sent"] is not None and r["model"] is not None:
                others, models = r["sent"][1:] or r["sent"], r["model"][1:] or r["model"]
                sent, model, first = f"{max(others) / n:.3f}", f"{max(models) / n:.3f}", f"{r['sent'][0] / n:.3f}"
            else:
                sent = model = first = "—"
            cells = (r["algorithm"], str(r["ranks"]), size_text(n), sent, model, first,
                     f"{1000 * max(r['wall_s']):.1f}", f"{1000 * max(r['cpu_s']):.1f}", f"{r['max_error']:g}")
            for j, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if j:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(i, j, item)

    def _draw_timeline(self, index: int) -> None:
        algorithm = self.selector.itemData(index) if index >= 0 else None
        if self.result is None or algorithm not in self.result["timelines"]:
            self.gantt.set_bars([], [])
            self.summary.setText("")
            self.gantt_hint.show_hint()
            return
        phases = self.result["timelines"][algorithm]
        bars = [Bar(int(i["rank"]), 1000 * i["start"], 1000 * i["end"], i["kind"],
                    f"step {i['step']}" if i["step"] else "") for i in phases]
        order = {kind: k for k, kind in enumerate(KINDS)}  # one legend order for every algorithm
        p = self.result["timeline_ranks"]
        self.gantt.set_bars([f"rank {r}" for r in range(p)], sorted(bars, key=lambda b: order.get(b.kind, 99)),
                            KIND_COLOURS)
        self.gantt.getPlotItem().setYRange(-1.1 - 0.25 * p, p - 0.4, padding=0.02)  # room for the legend
        self.gantt_hint.hide_hint()
        end = max((b.end for b in bars), default=0.0)
        self.summary.setText(f"p = {p}, N = {size_text(self.result['timeline_size'])}: {end:.1f} ms from the "
                             "first rank leaving the barrier to the last one done")
