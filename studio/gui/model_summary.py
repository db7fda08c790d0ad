"""The model summary dialog: layers, output shapes, parameters and FLOPs of the configured model.

Building the model needs torch, so the dialog runs ``studio model summary --json`` in a child
process (QProcess) and fills its table when the answer comes; the window never waits.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from PySide6.QtCore import QProcess
from PySide6.QtWidgets import QDialog, QLabel, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from studio.core.config import RunConfig

COLUMNS = ("Layer", "Type", "Output shape", "Parameters", "FLOPs / sample")


class ModelSummaryDialog(QDialog):
    def __init__(self, config: RunConfig, parent: QWidget | None = None) -> None:
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
        self._dir = tempfile.TemporaryDirectory(prefix="studio-summary-")
        path = Path(self._dir.name) / "config.toml"
        config.save(path)
        self.process = QProcess(self)
        self.process.finished.connect(self._done)
        self.process.start(sys.executable, ["-m", "studio", "model", "summary", "--json", "--config", str(path)])

    def _done(self, code: int, _status: Any) -> None:
        out = bytes(self.process.readAllStandardOutput()).decode(errors="replace").strip().splitlines()
        err = bytes(self.process.readAllStandardError()).decode(errors="replace").strip().splitlines()
        if code != 0 or not out:
            self.error = err[-1] if err else f"the summary process exited with code {code}"
            self.heading.setText(f"No summary: {self.error}")
            return
        self.result = json.loads(out[-1])
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
        if self.process.state() != QProcess.ProcessState.NotRunning:
            self.process.kill()
            self.process.waitForFinished(1000)
        self._dir.cleanup()
        super().done(result)
