"""The hardware panel: CPU or CUDA GPUs, and how many processes (ranks).

The GUI does not import torch: a background process probes the machine once at start-up and the
panel fills in when it answers (that is also when the status bar says the back end is ready).
"""

from __future__ import annotations

import json
import sys
from typing import Any

from PySide6.QtCore import QProcess, Qt, Signal
from PySide6.QtWidgets import QComboBox, QFormLayout, QLabel, QListWidget, QListWidgetItem, QSpinBox, QWidget

PROBE = (
    "import json, os, torch;"
    "print(json.dumps({'torch': torch.__version__, 'cuda': torch.version.cuda,"
    "'cpus': os.cpu_count(),"
    "'gpus': [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]}))"
)


class BackendProbe(QProcess):
    """Runs the probe in a child Python; emits ``ready(dict)`` or ``failed(str)``."""

    ready = Signal(object)
    failed = Signal(str)

    def start_probe(self) -> None:
        self.finished.connect(self._done)
        self.start(sys.executable, ["-c", PROBE])

    def _done(self, code: int, _status: Any) -> None:
        out = bytes(self.readAllStandardOutput().data()).decode(errors="replace").strip().splitlines()
        try:
            if code != 0:
                raise ValueError(bytes(self.readAllStandardError().data()).decode(errors="replace")[-300:])
            self.ready.emit(json.loads(out[-1]))
        except (ValueError, IndexError) as err:
            self.failed.emit(f"the training back end (PyTorch) could not start: {err}")


class HardwarePanel(QWidget):
    changed = Signal()

    def __init__(self, session: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.info: dict[str, Any] = {}
        form = QFormLayout(self)
        form.setContentsMargins(4, 4, 4, 4)
        self.device = QComboBox()
        self.device.setObjectName("device")
        self.device.addItem("CPU", "cpu")
        self.device.setToolTip("Where to train: the CPU, or CUDA GPUs (listed once the back end has started)")
        self.gpus = QListWidget()
        self.gpus.setObjectName("gpus")
        self.gpus.setMaximumHeight(80)
        self.gpus.setToolTip("Tick the GPUs to train on: one process per GPU (DistributedDataParallel)")
        self.processes = QSpinBox()
        self.processes.setObjectName("processes")
        self.processes.setRange(1, 64)
        self.processes.setToolTip("Processes (ranks) to train with; more than one uses DistributedDataParallel")
        self.note = QLabel("Probing the machine…")
        self.note.setWordWrap(True)
        form.addRow("Device", self.device)
        form.addRow("GPUs", self.gpus)
        form.addRow("Processes", self.processes)
        form.addRow(self.note)
        self.gpus.setVisible(False)
        self.load_from_config()
        self.device.currentIndexChanged.connect(self._apply)
        self.processes.valueChanged.connect(self._apply)
        self.gpus.itemChanged.connect(self._apply)

    def load_from_config(self) -> None:
        hw = self.session.config.hardware
        self.processes.blockSignals(True)
        self.processes.setValue(hw.processes)
        self.processes.blockSignals(False)

    def set_backend(self, info: dict[str, Any]) -> None:
        """Fill in what the probe found."""
        self.info = info
        gpus = info.get("gpus", [])
        self.gpus.blockSignals(True)
        self.gpus.clear()
        for i, name in enumerate(gpus):
            item = QListWidgetItem(f"{i}: {name}")
            item.setCheckState(Qt.CheckState.Checked)
            self.gpus.addItem(item)
        self.gpus.blockSignals(False)
        if gpus and self.device.findData("cuda") < 0:
            self.device.addItem(f"CUDA ({len(gpus)} GPU{'s' if len(gpus) > 1 else ''})", "cuda")
        cuda = f", CUDA {info['cuda']}" if info.get("cuda") else ""
        self.note.setText(f"PyTorch {info.get('torch')}{cuda}; {info.get('cpus')} CPU cores, {len(gpus)} GPUs")

    def _apply(self) -> None:
        device = self.device.currentData()
        hw = self.session.config.hardware
        hw.device = device
        self.gpus.setVisible(device == "cuda")
        if device == "cuda":
            picked = [i for i in range(self.gpus.count()) if self.gpus.item(i).checkState() == Qt.CheckState.Checked]
            hw.gpus = picked
            hw.processes = max(1, len(picked))
            self.processes.blockSignals(True)
            self.processes.setValue(hw.processes)
            self.processes.blockSignals(False)
            self.processes.setEnabled(False)
        else:
            hw.gpus = []
            hw.processes = self.processes.value()
            self.processes.setEnabled(True)
        self.session.config_changed.emit()
        self.changed.emit()
