"""Run on a cluster…: the settings in the window as a ready-to-submit Slurm job (``studio export-config
--torchrun`` in a dialog). Nodes, GPUs or CPU ranks a node, time limit and partition in a form; the batch
script shown as it will be written; Save writes ``config.toml`` and ``run.sbatch`` into a folder
(core/config/slurm.py, docs/user-guide/clusters.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtGui import QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from studio.core.config.slurm import ClusterSpec, batch_script, cluster_config, run_id_for, write_cluster_job
from studio.core.errors import StudioError
from studio.core.host.paths import studio_home
from studio.gui.widgets import wheel_guard

PREVIEW_FOLDER = Path("/path/to/folder")  # the script shown before Save knows where it goes


def _spin(low: int, high: int, value: int, tip: str) -> QSpinBox:
    box = QSpinBox()
    box.setRange(low, high)
    box.setValue(value)
    box.setToolTip(tip)
    return wheel_guard.guard(box)


class ClusterDialog(QDialog):
    """The session's config as a Slurm + torchrun job; ``save_to(folder)`` writes it (the Save… button asks where)."""

    def __init__(self, session: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Run on a cluster")
        self.session = session
        self.run_id = run_id_for(session.config.model.name)  # fixed in the script: a requeued job continues it
        self.written: tuple[Path, Path | None] | None = None
        d = ClusterSpec()
        self.nodes = _spin(1, 4096, d.nodes, "Machines the job runs on (one torchrun agent each)")
        self.gpus = _spin(0, 64, d.gpus_per_node, "GPUs a node, one rank each (0: CPU ranks with gloo)")
        self.procs = _spin(1, 1024, d.procs_per_node, "CPU ranks a node when the nodes have no GPUs")
        self.cpus = _spin(0, 4096, d.cpus_per_node, "CPU cores to ask Slurm for, a node (0: Slurm's default)")
        self.time_limit = QLineEdit(d.time_limit)
        self.time_limit.setToolTip("The job's time limit in Slurm's form: 04:00:00, or 1-00:00:00 for a day")
        self.partition = QLineEdit()
        self.partition.setPlaceholderText("the cluster's default")
        self.signal_s = _spin(10, 3600, d.signal_seconds, "Seconds before the time limit that the ranks get SIGTERM: "
                              "they stop together with a checkpoint and the job is requeued")
        self.restarts = _spin(0, 100, d.max_restarts, "torchrun restarts the ranks this often after one fails")
        self.home = QLineEdit(str(studio_home()))
        self.home.setToolTip("The run store on the cluster: a folder every node shares (File › Open run store… "
                             "watches it from here)")
        form = QFormLayout()
        for label, widget in (("Nodes", self.nodes), ("GPUs a node", self.gpus), ("CPU ranks a node", self.procs),
                              ("CPU cores a node", self.cpus), ("Time limit", self.time_limit),
                              ("Partition", self.partition), ("Checkpoint warning (s)", self.signal_s),
                              ("Restarts after a failure", self.restarts), ("Run store on the cluster", self.home)):
            form.addRow(label, widget)
        self.summary = QLabel()
        self.summary.setObjectName("cluster_summary")
        self.summary.setWordWrap(True)
        self.script = QPlainTextEdit()
        self.script.setObjectName("cluster_script")
        self.script.setReadOnly(True)
        self.script.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.script.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.copy_button = QPushButton("Copy script")
        self.copy_button.clicked.connect(lambda: QGuiApplication.clipboard().setText(self.script.toPlainText()))
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Close)
        self.save_button = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        self.save_button.setText("Save…")
        self.save_button.setToolTip("Write config.toml and run.sbatch into a folder; submit with sbatch there")
        self.buttons.accepted.connect(self._save_dialog)
        self.buttons.rejected.connect(self.reject)
        row = QHBoxLayout()
        row.addWidget(self.copy_button)
        row.addStretch(1)
        row.addWidget(self.buttons)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.summary)
        layout.addWidget(self.script, 1)
        layout.addLayout(row)
        for box in (self.nodes, self.gpus, self.procs, self.cpus, self.signal_s, self.restarts):
            box.valueChanged.connect(self.update_preview)
        for edit in (self.time_limit, self.partition, self.home):
            edit.textChanged.connect(self.update_preview)
        screen = self.screen().availableGeometry() if self.screen() else None
        self.resize(min(820, screen.width() - 40) if screen else 820, min(640, screen.height() - 60) if screen else 640)
        self.update_preview()

    def spec(self) -> ClusterSpec:
        return ClusterSpec(nodes=self.nodes.value(), gpus_per_node=self.gpus.value(), procs_per_node=self.procs.value(),
                           time_limit=self.time_limit.text().strip(), partition=self.partition.text().strip(),
                           signal_seconds=self.signal_s.value(), max_restarts=self.restarts.value(),
                           cpus_per_node=self.cpus.value())

    def update_preview(self) -> str:
        """Show the script as it will be written, or why it cannot be (Save is off then); the problem, or ""."""
        self.procs.setEnabled(self.gpus.value() == 0)
        spec = self.spec()
        try:
            cfg = cluster_config(self.session.config, spec)
            cfg.validate()
            text = batch_script(spec, PREVIEW_FOLDER / "config.toml", self.run_id, self.home.text().strip(),
                                run_name=self.session.config.model.name)
        except StudioError as err:
            self.summary.setText(f"Cannot write the job: {err}")
            self.save_button.setEnabled(False)
            return str(err)
        ranks = spec.nodes * spec.ranks_per_node
        kind = f"{spec.gpus_per_node} GPU(s)" if spec.gpus_per_node else f"{spec.procs_per_node} CPU rank(s)"
        self.summary.setText(f"Run {self.run_id}: {spec.nodes} node(s) × {kind} = {ranks} rank(s); the global batch "
                             f"of {cfg.train.batch_size} is split between them. Save writes config.toml and "
                             "run.sbatch into a folder; submit with `sbatch run.sbatch` there.")
        self.script.setPlainText(text)
        self.save_button.setEnabled(True)
        return ""

    def save_to(self, folder: str | Path) -> tuple[Path, Path | None]:
        """Write the job into ``folder`` (StudioError with one line when it cannot)."""
        self.written = write_cluster_job(self.session.config, self.spec(), Path(folder).resolve(), self.run_id,
                                         self.home.text().strip(), run_name=self.session.config.model.name)
        return self.written

    def _save_dialog(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Folder for config.toml and run.sbatch",
                                                  str(Path.home()))
        if not folder:
            return
        try:
            config_path, script_path = self.save_to(folder)
        except StudioError as err:
            self.session.error.emit("Run on a cluster", str(err))
            return
        self.session.notice.emit(f"Wrote {config_path} and {script_path}; submit with: sbatch {script_path}", "")
        self.accept()
