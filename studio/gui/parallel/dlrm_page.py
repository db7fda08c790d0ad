"""The Parallelism lab's page "DLRM hybrid": a small recommendation model (Naumov et al. 2019) trained in one
process and on p processes with its embedding tables split between them (all-to-all of the looked-up vectors,
forward and backward) and its MLPs replicated (all-reduce of their gradients), measured in a background job
(``engine/tasks/dlrm.py``, the task ``DLRM``): the per-process timeline, the two losses, memory per process, the
numbers, why the tables cannot be replicated, and the paper check. No torch here."""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from studio.core.checks.catalog import CHECKS
from studio.core.contracts.dlrm import MAX_DIM, MAX_RANKS, MAX_ROWS, MAX_TABLES, MIN_RANKS, DlrmRequest, validate
from studio.core.errors import ConfigError
from studio.gui.parallel import page_frame
from studio.gui.parallel.dlrm_plots import DlrmPlots, replication_words
from studio.gui.widgets.check_panel import CheckPanel
from studio.gui.widgets.job_panel import FAILURE_LINES, JobPanel, Words
from studio.gui.widgets.paper_check import verdict_html
from studio.gui.widgets.wheel_guard import guard_tree

CHECK_NAME = "naumov_dlrm_hybrid"
CLAIM = ("<b>The claim.</b> A recommendation model's embedding tables are too large to copy onto every device, "
         "its MLPs small: DLRM splits the tables between the devices (each owns whole tables; an all-to-all "
         "brings every sample's vectors to the device with that sample, and their gradients back) and replicates "
         "the MLPs (their gradients all-reduced). It is still the same training as on one device, with each device "
         "holding only its share of the tables.")


def _spin(low: int, high: int, value: int, tip: str, name: str = "") -> QSpinBox:
    box = QSpinBox()
    box.setRange(low, high)
    box.setValue(value)
    box.setToolTip(tip)
    box.setGroupSeparatorShown(True)
    if name:
        box.setObjectName(name)
    return box


class DlrmPage(QWidget):
    """The form, the arithmetic, the check and Run/Cancel on the left; the timeline above the plots on the right."""

    def __init__(self, session: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.result: dict[str, Any] | None = None
        self.submitted: DlrmRequest | None = None
        d = DlrmRequest()
        self.panel = JobPanel("Run", words=Words(idle="Press Run: one process, then the hybrid ranks, on the same "
                                                      "batches.", starting="Starting the processes…",
                                                 refused="Not started: {message}"),
                              status_lines=FAILURE_LINES)  # a failed rank: its sentence and stderr lines
        self.panel.run_clicked.connect(self.run)
        self.panel.done.connect(self.show_result)
        self.panel.run_button.setObjectName("dlrm_run")
        self.panel.run_button.setToolTip("Train the model in one process, then split over the processes")
        self.panel.cancel_button.setToolTip("Stop the study (every process ends)")
        self.panel.status.setObjectName("dlrm_status")

        self.claim = QLabel(CLAIM)
        self.claim.setObjectName("dlrm_claim")
        self.claim.setWordWrap(True)
        self.claim.setTextFormat(Qt.TextFormat.RichText)
        self.ranks = _spin(MIN_RANKS, MAX_RANKS, d.ranks, "Processes: each owns whole tables and trains a share of "
                                                          "every batch", "dlrm_ranks")
        self.tables = _spin(1, MAX_TABLES, d.tables, "Embedding tables, one per sparse feature (at least one per "
                                                     "process)", "dlrm_tables")
        self.rows = _spin(2, MAX_ROWS, d.rows, "Rows per table: the sparse feature's distinct values", "dlrm_rows")
        self.rows.setSingleStep(10_000)
        self.dim = _spin(2, MAX_DIM, d.dim, "Each row's vector length (the bottom MLP's output too)", "dlrm_dim")
        self.batch = _spin(1, 65_536, d.batch_size, "Global batch: each process trains batch ÷ p of its samples",
                           "dlrm_batch")
        self.steps = _spin(2, 10_000, d.steps, "Training steps, in one process and hybrid (the same batches)",
                           "dlrm_steps")
        self.lr = QLineEdit(f"{d.lr:g}")
        self.lr.setObjectName("dlrm_lr")
        self.lr.setToolTip("Adagrad's learning rate")
        self.seed = _spin(0, 1_000_000, d.seed, "The seed of the weights and of the synthetic clicks")
        form = QFormLayout()
        form.addRow("Processes", self.ranks)
        form.addRow("Tables", self.tables)
        form.addRow("Rows per table", self.rows)
        form.addRow("Dimension", self.dim)
        form.addRow("Global batch", self.batch)
        form.addRow("Steps", self.steps)
        form.addRow("lr", self.lr)
        form.addRow("Seed", self.seed)
        self.arithmetic = QLabel()
        self.arithmetic.setObjectName("dlrm_arithmetic")
        self.arithmetic.setWordWrap(True)
        self.arithmetic.setTextFormat(Qt.TextFormat.RichText)
        for box in (self.ranks, self.tables, self.rows, self.dim):
            box.valueChanged.connect(self._arithmetic)
        self._arithmetic()

        check = CHECKS.get(CHECK_NAME)
        self.check_panel = CheckPanel(self, [check]) if check else None
        self.verdicts = QLabel("")
        self.verdicts.setObjectName("dlrm_check_verdicts")
        self.verdicts.setTextFormat(Qt.TextFormat.RichText)
        if self.check_panel is not None:
            self.check_panel.job.done.connect(lambda _outcomes: self.show_verdicts())

        side = QWidget()
        side_layout = QVBoxLayout(side)
        side_layout.addLayout(form)
        side_layout.addWidget(self.arithmetic)
        if self.check_panel is not None:
            side_layout.addWidget(self.check_panel)
        side_layout.addStretch(1)
        column, self.side_scroll = page_frame.side_column(side, self.panel)

        self.plots = DlrmPlots()
        charts = QWidget()
        row = QHBoxLayout(charts)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.plots.loss)
        row.addWidget(self.plots.memory)
        self.views = QTabWidget()
        self.views.setObjectName("dlrm_views")
        self.views.setDocumentMode(True)
        self.views.addTab(charts, "Loss and memory")
        self.views.addTab(self.plots.table, "Numbers")
        self.views.setTabToolTip(0, "The two trainings' losses; what each process holds")
        self.views.setTabToolTip(1, "The all-to-all's bytes, the tables per rank, the step times")
        body = page_frame.body(column, self.plots.gantt, self.views, [250, 350], 260)
        top = page_frame.claim_row(self.claim, self.check_panel, self.verdicts)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(body, 1)
        guard_tree(self)  # built on first view, after the window guarded its tabs: the wheel scrolls the form

    def _arithmetic(self) -> None:
        self.arithmetic.setText(replication_words(self.tables.value(), self.rows.value(), self.dim.value(),
                                                  self.ranks.value()))

    # --- what CheckPanel asks of its view ------------------------------------------------------------------------
    def set_params(self, params: dict[str, Any]) -> None:
        """The check carries no preset for the form; nothing to set."""

    def show_status(self, text: str, error: bool = False) -> None:
        self.panel.show_status(text, error)

    def show_verdicts(self) -> None:
        outcomes = self.check_panel.outcomes if self.check_panel is not None else []
        self.verdicts.setText("<br>".join(f"{verdict_html(o['verdict'])} {html.escape(o['name'])}" for o in outcomes))

    # --- the job -------------------------------------------------------------------------------------------------
    def request(self) -> DlrmRequest:
        """The form as a request; ConfigError (one sentence) on what cannot be one."""
        try:
            lr = float(self.lr.text())
        except ValueError:
            raise ConfigError(f"the learning rate is a number, e.g. 0.05 (not {self.lr.text()!r})") from None
        d = DlrmRequest()
        steps = self.steps.value()
        request = DlrmRequest(ranks=self.ranks.value(), tables=self.tables.value(), rows=self.rows.value(),
                              dim=self.dim.value(), batch_size=self.batch.value(), steps=steps,
                              warmup_steps=min(d.warmup_steps, steps - 1),
                              timeline_steps=max(1, min(d.timeline_steps, steps - d.warmup_steps)), lr=lr,
                              seed=self.seed.value())
        validate(request)
        return request

    def run(self) -> None:
        self.panel.submit(self.session, self._submit)

    def _submit(self) -> DlrmRequest:
        self.submitted = self.request()
        return self.submitted

    def show_result(self, result: dict[str, Any]) -> None:
        self.result = result
        self.plots.show(result)
        run = result["runs"][0]
        same = "the same training" if result["equal"] else "NOT the same training"
        self.show_status(f"{result['ranks']} processes, {result['tables']} tables of {result['rows']:,} × "
                         f"{result['dim']}, batch {result['batch_size']}: largest loss gap {run['max_gap']:.1e} — "
                         f"{same}; {result['cores']} cores, load {result['load']:.1f}.",
                         error=not result["equal"])
