"""The model summary dialog: layers, output shapes, parameters and FLOPs of the configured model, and its memory
view: parameters, gradients, optimizer state and one micro-batch's activations, computed and measured side by side
(``core/estimates/memory.py``), for the configured optimizer, precision and accumulation.

Building the model needs torch, so the dialog asks the Session for a model-summary job
(``engine/tasks/summary.py``) and fills its table when the answer comes; the window never waits.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from studio.core.config import RunConfig
from studio.core.contracts.jobs import SummaryRequest
from studio.core.numbers.byte_size import byte_size
from studio.gui.session.job_binding import JobBinding

COLUMNS = ("Layer", "Type", "Output shape", "Parameters", "FLOPs / sample")
MEMORY_COLUMNS = ("Memory", "Computed", "Measured", "How measured")


class ModelSummaryDialog(QDialog):
    def __init__(self, session: Any, config: RunConfig, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Model summary: {config.model.name}")
        self.resize(760, 600)
        self.summary: dict[str, Any] | None = None  # not ``result``: that would hide QDialog.result()
        self.error = ""
        layout = QVBoxLayout(self)
        self.heading = QLabel("Building the model…")
        self.heading.setWordWrap(True)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.memory_heading = QLabel("")
        self.memory_heading.setWordWrap(True)
        self.memory_table = QTableWidget(0, len(MEMORY_COLUMNS))
        self.memory_table.setObjectName("memory_view")
        self.memory_table.setHorizontalHeaderLabels(list(MEMORY_COLUMNS))
        self.memory_table.verticalHeader().setVisible(False)
        self.memory_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.memory_table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.memory_table.horizontalHeader().setStretchLastSection(True)
        layout.addWidget(self.heading)
        layout.addWidget(self.table, 3)
        layout.addWidget(self.memory_heading)
        layout.addWidget(self.memory_table)
        self.binding = JobBinding(self)
        self.binding.progress.connect(lambda _f, text: self.heading.setText(f"Building the model… {text}"))
        self.binding.done.connect(self._done)
        self.binding.failed.connect(self._failed)
        self.binding.cancelled.connect(lambda: self._failed("the summary stopped"))
        self.job = self.binding.start(session.start(SummaryRequest(config.to_dict())))  # the Session's JobHandle

    def _done(self, result: dict[str, Any]) -> None:
        self.summary = result
        self.show_result(result)

    def _failed(self, message: str) -> None:
        self.error = message
        self.heading.setText(f"No summary: {self.error}")

    def show_result(self, r: dict[str, Any]) -> None:
        self.heading.setText(
            f"{r['model']} on {r['dataset']}: input {r['input_shape']} → output {r['output_shape']}; "
            f"{r['total_params']:,} parameters ({r['trainable_params']:,} trainable, "
            f"{r.get('n_params_non_embedding', r['total_params']):,} outside the embeddings: Kaplan's N), "
            f"{r['flops_per_sample'] / 1e6:,.2f} MFLOPs per sample (a multiply-add counts 2)")
        layers = r["layers"]
        self.table.setRowCount(len(layers))
        for row, layer in enumerate(layers):
            values = (layer["name"], layer["type"], "×".join(map(str, layer["output_shape"])),
                      f"{layer['params']:,}", f"{layer['flops']:,}")
            for col, text in enumerate(values):
                self.table.setItem(row, col, QTableWidgetItem(text))
        self.table.resizeColumnsToContents()
        if "memory" in r:
            self.show_memory(r["memory"])

    def show_memory(self, m: dict[str, Any]) -> None:
        """The memory view: one row per item, computed beside measured, how it was measured (full text on hover)."""
        k, ranks, micro = m["accumulate_steps"], m["processes"], m["micro_batch"]
        self.memory_heading.setText(
            f"Memory of one training step on the {'GPU' if m['device'] == 'cuda' else 'CPU'}: "
            f"{m['precision']}, {m['optimizer']}, micro-batch {micro} (global batch {micro} × {k} × {ranks} = "
            f"{micro * k * ranks}); activations are held for one micro-batch whatever the accumulation")
        rows = m["rows"]
        self.memory_table.setRowCount(len(rows))
        for row, item in enumerate(rows):
            values = (item["item"], byte_size(item["computed"]), byte_size(item["measured"]), item["how"])
            for col, text in enumerate(values):
                cell = QTableWidgetItem(text)
                if col in (1, 2):
                    cell.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if col == 3:
                    cell.setToolTip(text)
                self.memory_table.setItem(row, col, cell)
        self.memory_table.resizeRowsToContents()
        frame = 2 * self.memory_table.frameWidth()
        self.memory_table.setMaximumHeight(self.memory_table.horizontalHeader().height() + frame
                                           + sum(self.memory_table.rowHeight(i) for i in range(len(rows))))

    def done(self, result: int) -> None:  # noqa: D401 - Qt override
        self.binding.cancel()
        super().done(result)
