"""The model summary dialog: layers, output shapes, parameters and FLOPs of the configured model.

Building the model needs torch, so the dialog asks the Session for a model-summary job
(``engine/tasks/summary.py``) and fills its table when the answer comes; the window never waits.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QDialog, QLabel, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from studio.core.config import RunConfig
from studio.core.vocab import JobState

COLUMNS = ("Layer", "Type", "Output shape", "Parameters", "FLOPs / sample")


class ModelSummaryDialog(QDialog):
    def __init__(self, session: Any, config: RunConfig, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Model summary: {config.model.name}")
        self.resize(640, 480)
        self.result: dict[str, Any] | None = None
        self.error = ""
        layout = QVBoxLayout(self)
        self.heading = QLabel("Building the model…")
        self.heading.setWordWrap(True)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        layout.addWidget(self.heading)
        layout.addWidget(self.table, 1)
        self.job = session.start_summary(config)
        self.job.progress.connect(lambda *_: self.heading.setText(f"Building the model… {self.job.progress_text()}"))
        self.job.ended.connect(self._done)

    def _done(self, state: str, message: str) -> None:
        if state != JobState.FINISHED:
            self.error = message or f"the summary {state}"
            self.heading.setText(f"No summary: {self.error}")
            return
        self.result = self.job.result
        self.show_result(self.result)

    def show_result(self, r: dict[str, Any]) -> None:
        self.heading.setText(
            f"{r['model']} on {r['dataset']}: input {r['input_shape']} → output {r['output_shape']}; "
            f"{r['total_params']:,} parameters ({r['trainable_params']:,} trainable), "
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
        if not self.job.done:
            self.job.cancel()
        super().done(result)
