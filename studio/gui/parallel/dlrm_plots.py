"""The views of the "DLRM hybrid" page over a ``DlrmResult``: the per-process timeline (the one process above the
hybrid ranks: data, compute, all-to-all, all-reduce, idle), the two loss curves on each other with the clicks'
floors, the memory each process holds (tables, Adagrad's state, MLPs, all-to-all buffers, and its measured growth)
and the numbers; plus the arithmetic of why the tables cannot be replicated, in words."""

from __future__ import annotations

from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem

from studio.core.contracts.dlrm import (
    KINDS,
    PAPER_DIM,
    PAPER_ROWS,
    PAPER_TABLES,
    V100_BYTES,
    table_bytes,
)
from studio.gui.plots.empty_hint import EmptyHint
from studio.gui.plots.gantt import Bar, GanttPlot
from studio.gui.plots.palette import run_colour

MB = 1e6
KIND_COLOURS = {"data": "#999999", "forward": "#0072B2", "all-to-all": "#CC79A7", "backward": "#E69F00",
                "all-reduce": "#D55E00", "optimizer": "#009E73", "idle": "#c8c8c8"}
MEMORY_PARTS = (("table_bytes", "tables"), ("optimizer_bytes", "Adagrad state"), ("mlp_bytes", "MLPs"),
                ("exchange_bytes", "all-to-all buffers"))


def _gb(n: float) -> str:
    return f"{n / 1e9:,.1f} GB" if n >= 1e9 else f"{n / 1e6:,.1f} MB"


def replication_words(tables: int, rows: int, dim: int, ranks: int) -> str:
    """Why DLRM splits its tables, as HTML: this model's bytes beside the paper's, against one GPU's memory."""
    ours = table_bytes(tables, rows, dim)
    paper = table_bytes(PAPER_TABLES, PAPER_ROWS, PAPER_DIM)
    one = table_bytes(1, 10 * PAPER_ROWS, PAPER_DIM)
    return (
        "<b>Why not replicate the tables?</b> Here: "
        f"{tables} tables × {rows:,} rows × {dim} × 4 bytes = {_gb(ours)}, as much again for Adagrad's state; split "
        f"over {ranks} processes each holds about {_gb(2 * ours / ranks)}. Naumov et al. (2019, §6) benchmark "
        f"{PAPER_TABLES} tables of {PAPER_ROWS:,} × {PAPER_DIM}: {_gb(paper)}; in production 'several tables each "
        f"requiring in excess of multiple GBs' (§4) — say ten of 10M × {PAPER_DIM}, {_gb(one)} each: "
        f"{_gb(10 * one)}, {10 * one / V100_BYTES:.1f}× the {V100_BYTES / 1e9:.0f} GB of one V100 of their Big "
        "Basin, before the optimizer's state. Data parallelism would put every table on every device; split by "
        "table, each device holds 1/p of them — and the MLPs, small but most of the compute, stay replicated.")


def _plot(name: str, title: str, x: str, y: str, hint: str) -> tuple[pg.PlotWidget, EmptyHint]:
    plot = pg.PlotWidget()
    plot.setObjectName(name)
    plot.setTitle(title, size="10pt")
    plot.setLabel("bottom", x)
    plot.setLabel("left", y)
    plot.showGrid(x=True, y=True, alpha=0.3)
    plot.getAxis("left").enableAutoSIPrefix(False)
    plot.setMinimumSize(160, 150)
    plot.addLegend(offset=(-10, 10), labelTextSize="8pt", verSpacing=-6)
    return plot, EmptyHint(plot, hint)


class DlrmPlots:
    """``gantt``, ``loss``, ``memory`` (plots) and ``table``; ``show(result)`` draws them all."""

    def __init__(self) -> None:
        self.gantt = GanttPlot(x_label="time", x_units="ms")
        self.gantt.setObjectName("dlrm_gantt")
        self.gantt.getPlotItem().getAxis("bottom").enableAutoSIPrefix(False)
        self.gantt.setMinimumHeight(150)
        self.gantt_hint = EmptyHint(self.gantt, "Press Run: each process's steps — compute, the all-to-alls of the "
                                                "looked-up vectors, the all-reduce of the MLPs' gradients, idle")
        self.loss, self.loss_hint = _plot("dlrm_loss", "Loss: one process and hybrid", "step", "BCE loss",
                                          "Press Run: the two trainings' losses, on top of each other")
        self.memory, self.memory_hint = _plot("dlrm_memory", "Memory per process", "MB", "",
                                              "Press Run: what each process holds — a rank only its tables")
        self.memory.showGrid(x=True, y=False, alpha=0.3)
        self.memory.getPlotItem().invertY(True)
        self.memory.setMouseEnabled(y=False)
        self.memory.getPlotItem().legend.setOffset((-10, -10))  # bottom right: beside the ranks' shorter bars
        self.table = QTableWidget(0, 3)
        self.table.setObjectName("dlrm_table")
        self.table.setHorizontalHeaderLabels(["quantity", "measured", "expected"])
        self.table.setToolTip("What the hybrid run measured beside what it must be")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)

    def show(self, result: dict[str, Any]) -> None:
        self.show_timeline(result)
        self.show_loss(result)
        self.show_memory(result)
        self.show_table(result)

    def show_timeline(self, result: dict[str, Any]) -> None:
        lanes = ["one process"] + [f"rank {r}" for r in range(result["ranks"])]
        bars = [Bar(0, 1000 * i["start"], 1000 * i["end"], i["kind"], f"step {i['step']}")
                for i in result["single_timeline"]]
        bars += [Bar(int(i["rank"]) + 1, 1000 * i["start"], 1000 * i["end"], i["kind"], f"step {i['step']}")
                 for i in result["timeline"]]
        order = {kind: k for k, kind in enumerate(KINDS)}
        self.gantt.set_bars(lanes, sorted(bars, key=lambda b: order.get(b.kind, 99)), KIND_COLOURS)
        self.gantt.getPlotItem().setYRange(-1.1 - 0.25 * len(lanes), len(lanes) - 0.4, padding=0.02)
        self.gantt_hint.hide_hint()

    def show_loss(self, result: dict[str, Any]) -> None:
        plot = self.loss
        plot.clear()
        run = result["runs"][0]
        steps = list(range(1, len(run["single"]) + 1))
        self.loss_hint.hide_hint()
        plot.plot(steps, run["single"], pen=pg.mkPen(run_colour(0), width=4), name="one process")
        plot.plot(steps, run["hybrid"], pen=pg.mkPen(run_colour(1), width=1.5), name=f"hybrid, {result['ranks']} "
                                                                                      "ranks")
        for value, name, style in ((result["base"], "always the mean rate", Qt.PenStyle.DashLine),
                                   (result["floor"], "best possible (Bayes)", Qt.PenStyle.DotLine)):
            plot.plot([steps[0], steps[-1]], [value, value], pen=pg.mkPen(run_colour(7), width=1.5, style=style),
                      name=name)

    def show_memory(self, result: dict[str, Any]) -> None:
        plot = self.memory
        plot.clear()
        processes = [result["single_memory"], *result["memory"]]
        self.memory_hint.hide_hint()
        left = [0.0] * len(processes)
        for k, (key, name) in enumerate(MEMORY_PARTS):
            widths = [max(0.0, m[key] / MB) for m in processes]
            plot.addItem(pg.BarGraphItem(x0=left, y=list(range(len(processes))), width=widths, height=0.6,
                                         brush=run_colour(k), pen=pg.mkPen(None), name=name))
            left = [a + b for a, b in zip(left, widths, strict=True)]
        plot.plot([m["rss_growth"] / MB for m in processes], list(range(len(processes))), pen=None, symbol="d",
                  symbolSize=11, symbolBrush=run_colour(7), symbolPen=pg.mkPen("w", width=1),
                  name="measured: memory grown")
        labels = ["one process"] + [f"rank {m['rank']}" for m in result["memory"]]
        axis = plot.getAxis("left")
        axis.setTicks([[(i, t) for i, t in enumerate(labels)], []])
        plot.setYRange(-0.6, len(processes) - 0.4, padding=0.02)
        plot.setXRange(0.0, max(left) * 1.9 or 1.0, padding=0.0)  # the right part for the legend

    def show_table(self, result: dict[str, Any]) -> None:
        ex = result["exchange"]
        exact = all(b == ex["model"] for b in ex["forward"] + ex["backward"])
        gaps = [r["max_gap"] for r in result["runs"]]
        ms = result["step_ms"]
        rows = [
            ("largest loss gap", f"{max(gaps):.1e} over {len(gaps)} seed{'s' * (len(gaps) > 1)}",
             f"≤ {result['loss_tolerance']:g}"),
            ("all-to-all per step (forward, backward)", f"{ex['forward'][0]:,} B, {ex['backward'][0]:,} B"
             + ("" if exact else " (not every step)"), f"{ex['model']:,} B = batch × tables × dim × 4"),
            ("of which left its rank", f"{ex['off_rank'][0]:,} B", f"(p−1)/p = {ex['off_rank'][0] / ex['model']:.2f}"
             if ex["model"] else "—"),
            ("all-reduce per rank per step", f"{ex['allreduce']:,} B", "the MLPs' gradients and the loss"),
            *((f"rank {m['rank']}: tables {', '.join(map(str, m['tables']))}", _gb(m["table_bytes"]),
               _gb(result["single_memory"]["table_bytes"] * len(m["tables"]) / result["tables"]))
              for m in result["memory"]),
            ("step time (one process, hybrid)", f"{ms['single']:.1f} ms, {ms['hybrid']:.1f} ms",
             f"{result['cores']} cores, load {result['load']:.1f}"),
        ]
        self.table.setRowCount(len(rows))
        for i, cells in enumerate(rows):
            for j, text in enumerate(cells):
                item = QTableWidgetItem(text)
                self.table.setItem(i, j, item)
