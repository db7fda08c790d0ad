"""The plots of "One model, four ways": the pipeline's measured bubble against the theory (p−1)/(M+p−1) as M
grows, the memory each rank holds (stacked: parameters, gradients, optimizer state, activations) and every
mode's loss curve overlaid (they should coincide)."""

from __future__ import annotations

from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt

from studio.core.contracts.parallel import MODES, PIPELINE_MODES
from studio.gui.parallel.modes_form import MODE_NAMES
from studio.gui.parallel.modes_timeline import row_title
from studio.gui.plots.empty_hint import EmptyHint
from studio.gui.plots.palette import run_colour

MB = 1024 * 1024
MEMORY_PARTS = (("parameters", "parameters"), ("gradients", "gradients"), ("optimizer", "optimizer state"),
                ("activations", "activations"))
SYMBOLS = {"pipeline-gpipe": "o", "pipeline-1f1b": "s", "model": "t"}


def theory_bubble(p: int, m: float) -> float:
    """The idle share of a p-stage pipeline with m micro-batches (GPipe, Huang et al. 2019)."""
    return (p - 1) / (m + p - 1)


def mode_colour(mode: str) -> str:
    return run_colour(MODES.index(mode) if mode in MODES else len(MODES))


def memory_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per mode for the memory chart: a pipeline mode at its largest M (the most micro-batches)."""
    chosen: dict[str, dict[str, Any]] = {}
    for row in rows:
        old = chosen.get(row["mode"])
        if old is None or row["microbatches"] > old["microbatches"]:
            chosen[row["mode"]] = row
    return [chosen[m] for m in sorted(chosen, key=lambda m: MODES.index(m) if m in MODES else len(MODES))]


def _plot(name: str, title: str, x: str, y: str, hint: str) -> tuple[pg.PlotWidget, EmptyHint]:
    plot = pg.PlotWidget()
    plot.setObjectName(name)
    plot.setTitle(title)
    plot.setLabel("bottom", x)
    plot.setLabel("left", y)
    plot.showGrid(x=True, y=True, alpha=0.3)
    plot.addLegend(offset=(-10, 10))
    return plot, EmptyHint(plot, hint)


class ModesPlots:
    """The three plots (``bubble``, ``memory``, ``loss``); ``show(result)`` redraws them."""

    def __init__(self) -> None:
        self.bubble, self.bubble_hint = _plot(
            "parallel_bubble", "Pipeline bubble against M", "micro-batches M", "idle share",
            "Press Run with a pipeline mode: the measured bubble beside the theory (p−1)/(M+p−1)")
        self.memory, self.memory_hint = _plot(
            "parallel_memory", "Memory per rank", "MB", "",
            "Press Run: what each rank holds — with the model split, each rank holds only its stage")
        self.memory.showGrid(x=True, y=False, alpha=0.3)
        self.memory.getPlotItem().invertY(True)
        self.memory.setMouseEnabled(y=False)
        self.memory.getPlotItem().legend.setOffset((-10, -10))  # bottom right: beside the split modes' short bars
        self.loss, self.loss_hint = _plot(
            "parallel_loss", "Loss of every mode", "samples", "loss",
            "Press Run: every mode's loss curve, on top of each other when the modes compute the same thing")

    def show(self, result: dict[str, Any]) -> None:
        self.show_bubble(result["rows"])
        self.show_memory(result["rows"])
        self.show_loss(result["rows"])

    def show_bubble(self, rows: list[dict[str, Any]]) -> None:
        plot = self.bubble
        plot.clear()
        measured = [r for r in rows if r["mode"] in (*PIPELINE_MODES, "model") and r.get("bubble") is not None]
        if not measured:
            self.bubble_hint.show_hint()
            return
        self.bubble_hint.hide_hint()
        p = max(r["ranks"] for r in measured)
        top = max(r["microbatches"] for r in measured)
        ms = [1 + i * (top - 1) / 200 for i in range(201)] if top > 1 else [1.0]
        plot.plot(ms, [theory_bubble(p, m) for m in ms], pen=pg.mkPen(run_colour(7), width=2),
                  name=f"theory (p−1)/(M+p−1), p={p}")
        for mode in (*PIPELINE_MODES, "model"):
            points = sorted((r["microbatches"], r["bubble"]) for r in measured if r["mode"] == mode)
            if points:
                plot.plot([m for m, _ in points], [b for _, b in points], pen=None, symbol=SYMBOLS[mode],
                          symbolSize=10, symbolBrush=mode_colour(mode), symbolPen=None,
                          name=f"{MODE_NAMES[mode]}, measured")
        plot.setYRange(0.0, 1.0, padding=0.02)
        plot.getAxis("bottom").setTicks([[(m, str(m)) for m in sorted({r["microbatches"] for r in measured})]])

    def show_memory(self, rows: list[dict[str, Any]]) -> None:
        plot = self.memory
        plot.clear()
        chosen = memory_rows(rows)
        lanes = [(row_title(r), m) for r in chosen for m in r["memory"]]
        if not lanes:
            self.memory_hint.show_hint()
            return
        self.memory_hint.hide_hint()
        left = [0.0] * len(lanes)
        for k, (key, name) in enumerate(MEMORY_PARTS):
            widths = [max(0.0, m[key] / MB) for _, m in lanes]
            plot.addItem(pg.BarGraphItem(x0=left, y=list(range(len(lanes))), width=widths, height=0.7,
                                         brush=run_colour(k), pen=pg.mkPen(None), name=name))
            left = [a + b for a, b in zip(left, widths, strict=True)]
        axis = plot.getAxis("left")
        labels = [f"{title} · rank {m['rank']}" for title, m in lanes]
        axis.setTicks([[(i, t) for i, t in enumerate(labels)], []])
        axis.setWidth(max(60, 7 * max(len(t) for t in labels)))
        plot.setYRange(-0.6, len(lanes) - 0.4, padding=0.02)
        plot.setXRange(0.0, max(left) * 1.8 or 1.0, padding=0.0)  # the right part for the legend, off the bars

    def show_loss(self, rows: list[dict[str, Any]]) -> None:
        plot = self.loss
        plot.clear()
        curves = [r for r in rows if r["losses"]]
        if not curves:
            self.loss_hint.show_hint()
            return
        self.loss_hint.hide_hint()
        named: set[str] = set()
        modes = [m for m in MODES if any(r["mode"] == m for r in curves)]
        for r in curves:  # the first mode widest, the next ones narrower on top: coinciding curves stay visible
            style = Qt.PenStyle.DashLine if r["mode"] in PIPELINE_MODES and r["microbatches"] > 1 else \
                Qt.PenStyle.SolidLine
            name = MODE_NAMES.get(r["mode"], r["mode"])
            later = len(modes) - 1 - modes.index(r["mode"]) if r["mode"] in modes else 0
            plot.plot([p[0] for p in r["losses"]], [p[1] for p in r["losses"]],
                      pen=pg.mkPen(mode_colour(r["mode"]), width=1.5 + 1.5 * later, style=style),
                      name=None if name in named else name)
            named.add(name)
