"""The numbers of "One model, four ways": one row per mode (a pipeline mode: per M) — throughput, its ratio to the
single process, the step time, the final loss and its gap to the single process's (✓ within the tolerance), the
pipeline bubble beside its theory, each rank's busy share and memory (MB per rank, "rank 0 / rank 1")."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem, QWidget

from studio.gui.parallel.modes_plots import MB, MEMORY_PARTS
from studio.gui.parallel.modes_timeline import row_title

COLUMNS = ("mode", "samples/s", "× single", "step ms", "final loss", "loss gap", "bubble", "theory", "busy",
           *(f"{name} MB" for _, name in MEMORY_PARTS))


def _share(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"


def row_cells(row: dict[str, Any], single_rate: float | None, tolerance: float) -> list[str]:
    """The table's cells for one ``ModeResult``."""
    speed = f"{row['samples_per_s'] / single_rate:.2f}×" if single_rate else "—"
    if row["mode"] == "single":
        gap = "reference"
    else:
        gap = f"{row['max_loss_gap']:.1e} {'✓' if row['max_loss_gap'] <= tolerance else '✗'}"
    per_rank = [" / ".join(f"{m[key] / MB:.2f}" for m in row["memory"]) for key, _ in MEMORY_PARTS]
    return [row_title(row), f"{row['samples_per_s']:,.0f}", speed, f"{row['step_ms']:.1f}", f"{row['final_loss']:.4f}",
            gap, _share(row.get("bubble")), _share(row.get("bubble_theory")),
            " / ".join(f"{b:.0%}" for b in row["busy"]), *per_rank]


def _blank() -> QTableWidgetItem:
    item = QTableWidgetItem("")
    item.setFlags(Qt.ItemFlag.NoItemFlags)
    return item


class ModesTable(QTableWidget):
    """Read-only; selecting a row is how the page picks the timeline to draw."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, len(COLUMNS), parent)
        self.setObjectName("parallel_table")
        self.setHorizontalHeaderLabels(list(COLUMNS))
        self.setToolTip("One row per mode (pipeline modes per M). × single: throughput ÷ the single process's; "
                        "loss gap: the largest |loss − single's loss| over the steps, ✓ within the tolerance; "
                        "per-rank columns read rank 0 / rank 1 / …. Select a row to draw its timeline.")
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.verticalHeader().setVisible(False)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)

    def show_result(self, result: dict[str, Any]) -> None:
        rows = result["rows"]
        single = next((r["samples_per_s"] for r in rows if r["mode"] == "single"), None)
        self.setRowCount(len(rows))
        for i, row in enumerate(rows):
            for j, text in enumerate(row_cells(row, single, result["loss_tolerance"])):
                item = QTableWidgetItem(text)
                if j:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if COLUMNS[j] == "loss gap" and text.endswith("✗"):
                    item.setToolTip(f"Larger than the tolerance {result['loss_tolerance']:.1e}: this mode does "
                                    "not compute the same training as the single process")
                self.setItem(i, j, item)
        pending = result.get("pending", [])  # while it runs: the configuration being measured, then the rest, greyed
        self.setRowCount(len(rows) + len(pending))
        for i, (mode, microbatches) in enumerate(pending, start=len(rows)):
            state = "measuring…" if i == len(rows) else "to come"
            for j, text in enumerate((row_title({"mode": mode, "microbatches": microbatches}), state)):
                item = QTableWidgetItem(text)
                item.setFlags(Qt.ItemFlag.NoItemFlags)  # shown, not selectable: it has no timeline yet
                self.setItem(i, j, item)
            for j in range(2, len(COLUMNS)):
                self.setItem(i, j, _blank())
