"""The per-rank timeline of one mode (or one pipeline M): a selector and a Gantt chart, one lane per rank, bars
coloured by what the rank was doing (fixed colours; idle light grey), times in ms."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from studio.core.contracts.parallel import KINDS, PIPELINE_MODES
from studio.gui.parallel.modes_form import MODE_NAMES
from studio.gui.plots.empty_hint import EmptyHint
from studio.gui.plots.gantt import Bar, GanttPlot

# one colour per kind, the same in every mode (Okabe–Ito; idle a light grey that reads on both themes)
KIND_COLOURS = {"forward": "#0072B2", "backward": "#E69F00", "optimizer": "#009E73", "send": "#CC79A7",
                "recv": "#56B4E9", "allreduce": "#D55E00", "idle": "#c8c8c8"}


def row_title(row: dict[str, Any]) -> str:
    """"single", "DDP", "model-parallel", "GPipe M=4", "1F1B M=8"."""
    name = MODE_NAMES.get(row["mode"], row["mode"])
    return f"{name} M={row['microbatches']}" if row["mode"] in PIPELINE_MODES else name


def timeline_bars(row: dict[str, Any]) -> tuple[list[str], list[Bar]]:
    """The lanes (one per rank) and the bars of ``row``'s timeline, in ms; the label names step and micro-batch."""
    bars = []
    for iv in row["timeline"]:
        label = f"step {iv['step']}"
        if iv.get("microbatch") is not None:
            label += f", micro-batch {iv['microbatch']}"
        bars.append(Bar(int(iv["rank"]), iv["start"] * 1000.0, iv["end"] * 1000.0, iv["kind"], label))
    lanes = max([b.lane for b in bars] + [row["ranks"] - 1]) + 1
    return [f"rank {r}" for r in range(lanes)], bars


class ModesTimeline(QWidget):
    """``show_rows(rows)`` fills the selector; choosing an entry redraws the Gantt with that row's intervals."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows: list[dict[str, Any]] = []
        self.selector = QComboBox()
        self.selector.setObjectName("parallel_timeline_mode")
        self.selector.setToolTip("Whose timeline to draw: each mode, and each pipeline mode at each M")
        self.selector.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.selector.currentIndexChanged.connect(self._draw)
        self.selector.setEnabled(False)  # until a result gives it entries
        self.summary = QLabel("")
        self.summary.setObjectName("parallel_timeline_summary")
        self.summary.setWordWrap(True)  # one line when there is room; never what sets the page's width
        self.gantt = GanttPlot(x_label="time", x_units="ms")
        self.gantt.setObjectName("parallel_gantt")
        self.gantt.getPlotItem().getAxis("bottom").enableAutoSIPrefix(False)  # ms stay ms
        self.gantt.setMinimumHeight(150)
        self.empty = EmptyHint(self.gantt, "Press Run: each rank's forward, backward, communication and idle "
                                           "time, measured, for a few steps")
        top = QHBoxLayout()
        top.addWidget(QLabel("Timeline of"))
        top.addWidget(self.selector)
        top.addWidget(self.summary, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.gantt, 1)

    def show_rows(self, rows: list[dict[str, Any]]) -> None:
        keep = self.selector.currentText()
        self.rows = list(rows)
        self.selector.blockSignals(True)
        self.selector.clear()
        self.selector.addItems([row_title(r) for r in self.rows])
        index = self.selector.findText(keep)
        self.selector.setCurrentIndex(index if index >= 0 else 0)
        self.selector.blockSignals(False)
        self.selector.setEnabled(bool(self.rows))
        self._draw(self.selector.currentIndex())

    def select(self, index: int) -> None:
        self.selector.setCurrentIndex(index)

    def _draw(self, index: int) -> None:
        if not 0 <= index < len(self.rows):
            self.gantt.set_bars([], [])
            self.summary.setText("")
            self.empty.show_hint()
            return
        row = self.rows[index]
        lanes, bars = timeline_bars(row)
        order = {kind: i for i, kind in enumerate(KINDS)}  # the legend lists the kinds in one order in every mode
        self.gantt.set_bars(lanes, sorted(bars, key=lambda b: order.get(b.kind, len(order))), KIND_COLOURS)
        # room above the first lane for the legend (it sits in the plot's top-right corner, over the bars)
        self.gantt.getPlotItem().setYRange(-1.1 - 0.25 * len(lanes), len(lanes) - 0.4, padding=0.02)
        self.empty.hide_hint()
        busy = " · ".join(f"rank {r} busy {b:.0%}" for r, b in enumerate(row["busy"]))
        bubble = f" · bubble {row['bubble']:.0%}" if row.get("bubble") is not None else ""
        self.summary.setText(f"{row['step_ms']:.1f} ms per step · {busy}{bubble}")
