"""The model summary dialog: layers, output shapes, parameters and FLOPs of the configured model.

Building the model needs torch, so the dialog asks the Session for a model-summary job
(``engine/tasks/summary.py``) and fills its table when the answer comes; the window never waits.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QDialog, QLabel, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from studio.core.config import RunConfig
from studio.gui.app.job_binding import JobBinding

COLUMNS = ("Layer", "Type", "Output shape", "Parameters", "FLOPs / sample")


class ModelSummaryDialog(QDialog):
    def __init__(self, session: Any, config: RunConfig, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Model summary: {config.model.name}")
        self.resize(640, 480)
        self.summary: dict[str, Any] | None = None  # not ``result``: that would hide QDialog.result()
        self.error = ""
        layout = QVBoxLayout(self)
        self.heading = QLabel("Building the model…")
        self.heading.setWordWrap(True)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        layout.addWidget(self.heading)
        layout.addWidget(self.table, 1)
        self.binding = JobBinding(self)
        self.binding.progress.connect(lambda _f, text: self.heading.setText(f"Building the model… {text}"))
        self.binding.done.connect(self._done)
        self.binding.failed.connect(self._failed)
        self.binding.cancelled.connect(lambda: self._failed("the summary stopped"))
        self.job = self.binding.start(session.start_summary(config))  # the Session's JobHandle

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

    def done(self, result: int) -> None:  # noqa: D401 - Qt override
        self.binding.cancel()
        super().done(result)
