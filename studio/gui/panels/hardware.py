"""The hardware panel: CPU or CUDA GPUs, and how many processes (ranks); while training on a machine with
GPUs, each GPU's utilisation and memory from NVML, live (``core/gpu_stats``; the optional ``studio[gpu]`` extra).

The GUI does not import torch: a background process probes the machine once at start-up and the
panel fills in when it answers (that is also when the status bar says the back end is ready).
"""

from __future__ import annotations

import json
import sys
from typing import Any

from PySide6.QtCore import QProcess, Qt, QTimer, Signal
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
        self.gpu_stats = QLabel()
        self.gpu_stats.setObjectName("gpu_stats")
        self.gpu_stats.setWordWrap(True)
        self.gpu_stats.setToolTip("Each GPU's utilisation (share of time a kernel ran) and memory in use, read from "
                                  "NVML every second while training")
        self.gpu_stats.setVisible(False)
        self.nvml_module: Any = None  # None: pynvml, imported when first needed; tests put a stand-in here
        self._nvml: Any = None  # the reader (core/gpu_stats.Nvml), or why there is none (a sentence)
        self.gpu_timer = QTimer(self)
        self.gpu_timer.setInterval(1000)
        self.gpu_timer.timeout.connect(self.sample_gpus)
        form.addRow("Device", self.device)
        form.addRow("GPUs", self.gpus)
        form.addRow("Processes", self.processes)
        form.addRow(self.note)
        form.addRow(self.gpu_stats)
        session.state_changed.connect(self._follow_training)
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

    def _follow_training(self, state: str) -> None:
        """Read the GPUs every second while training runs (only where the probe found GPUs)."""
        if state == "running" and self.info.get("gpus"):
            self.sample_gpus()
            if not isinstance(self._nvml, str):
                self.gpu_timer.start()
        else:
            self.gpu_timer.stop()

    def sample_gpus(self) -> None:
        """One reading of every GPU into the panel; without NVML, the reason once (and no more tries)."""
        from studio.core.host.gpu_stats import format_sample, open_nvml

        if self._nvml is None:
            self._nvml = open_nvml(self.nvml_module)
        if isinstance(self._nvml, str):
            self.gpu_timer.stop()
            self.gpu_stats.setText(self._nvml)
        else:
            try:
                self.gpu_stats.setText(format_sample(self._nvml.sample()))
            except Exception as err:  # noqa: BLE001 - a GPU that fell off the bus: said, not raised
                self.gpu_stats.setText(f"GPU utilisation could not be read: {err}")
                self.gpu_timer.stop()
        self.gpu_stats.setVisible(True)

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
