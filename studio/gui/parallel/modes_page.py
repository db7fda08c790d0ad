"""The Parallelism lab's page "One model, four ways": the same network and global batch trained single-process,
data-parallel, model-parallel and pipelined (GPipe, 1F1B at each M), measured in a background job
(``engine/tasks/parallel``, the task ``PARALLEL``): each rank's timeline, the bubble against its theory, the
numbers per mode, memory per rank, the loss curves overlaid, and the page's paper checks."""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QLabel,
    QScrollArea,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from studio.core.checks.catalog import CHECKS
from studio.gui.parallel import page_frame
from studio.gui.parallel.modes_form import ModesForm
from studio.gui.parallel.modes_plots import ModesPlots
from studio.gui.parallel.modes_table import ModesTable
from studio.gui.parallel.modes_timeline import ModesTimeline
from studio.gui.widgets.check_panel import CheckPanel
from studio.gui.widgets.job_panel import FAILURE_LINES, JobPanel, Words
from studio.gui.widgets.paper_check import verdict_html
from studio.gui.widgets.recorded_badge import RecordedBadge, show_shipped

CLAIM = ("<b>The claim.</b> Splitting the <i>data</i> keeps every rank busy: each holds the whole model and trains "
         "its share of the batch. Splitting the <i>model</i> leaves all but one rank idle at any moment — slower "
         "than one device for a model that fits in one. Pipelining micro-batches wins that idle time back, down to "
         "the bubble (p−1)/(M+p−1) for p stages and M micro-batches. Every mode trains the same network on the "
         "same samples, so the loss curves coincide.")
CHECK_NAMES = ("huang_gpipe_bubble", "model_parallel_slower")


class ModesPage(QWidget):
    """Form and buttons on the left; the timeline above the numbers and plots on the right."""

    def __init__(self, session: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.result: dict[str, Any] | None = None
        self.submitted: Any = None  # the last request handed to the Session
        self.panel = JobPanel("Run", words=Words(idle="Choose the modes and press Run.", starting="Starting the ranks…",
                                                 refused="Not started: {message}"),
                              status_lines=FAILURE_LINES)
        self.panel.run_clicked.connect(self.run)
        self.panel.frame.connect(self.show_partial)  # each configuration as soon as it is measured
        self.panel.done.connect(self.show_result)

        self.claim = QLabel(CLAIM)
        self.claim.setObjectName("parallel_claim")
        self.claim.setWordWrap(True)
        self.claim.setTextFormat(Qt.TextFormat.RichText)
        self.form = ModesForm()
        self.panel.run_button.setObjectName("parallel_run")
        self.panel.run_button.setToolTip("Train the network in each chosen mode and measure it (in the background)")
        self.panel.cancel_button.setObjectName("parallel_cancel")
        self.panel.cancel_button.setToolTip("Stop the measurement (every rank's process ends)")
        self.panel.status.setObjectName("parallel_status")
        checks = [CHECKS[n] for n in CHECK_NAMES if n in CHECKS]  # the lead merges them with the engine
        self.check_panel = CheckPanel(self, checks) if checks else None
        self.verdicts = QLabel("")  # each check's PASS/FAIL, beside the claim (the details: in the left column)
        self.verdicts.setObjectName("parallel_check_verdicts")
        self.verdicts.setTextFormat(Qt.TextFormat.RichText)
        if self.check_panel is not None:
            self.check_panel.job.done.connect(lambda _outcomes: self.show_verdicts())

        side = QWidget()
        side_layout = QVBoxLayout(side)
        side_layout.addWidget(self.form)
        if self.check_panel is not None:
            side_layout.addWidget(self.check_panel)
        side_layout.addStretch(1)
        self.side_scroll = QScrollArea()  # the check panel scrolls its result into view here
        self.side_scroll.setWidget(side)
        self.side_scroll.setWidgetResizable(True)
        column = QWidget()
        column_layout = QVBoxLayout(column)
        column_layout.setContentsMargins(0, 0, 0, 0)
        column_layout.addWidget(self.side_scroll, 1)
        column_layout.addWidget(self.panel)
        column.setMinimumWidth(200)

        self.timeline = ModesTimeline()
        self.table = ModesTable()
        self.table.itemSelectionChanged.connect(self._table_selected)
        self.plots = ModesPlots()
        self.views = QTabWidget()
        self.views.setObjectName("parallel_views")
        self.views.setDocumentMode(True)
        self.views.addTab(self.table, "Numbers")
        self.views.addTab(self.plots.bubble, "Bubble")
        self.views.addTab(self.plots.memory, "Memory")
        self.views.addTab(self.plots.loss, "Loss")
        for i, tip in enumerate(("Throughput, loss, bubble and memory of each mode",
                                 "The pipeline's measured idle share against (p−1)/(M+p−1)",
                                 "What each rank holds: with the model split, only its stage",
                                 "Every mode's training loss against the samples seen: one curve if all agree")):
            self.views.setTabToolTip(i, tip)
        body = page_frame.body(column, self.timeline, self.views, [300, 300], 230)
        top = page_frame.claim_row(self.claim, self.check_panel, self.verdicts)
        self.badge = RecordedBadge("Run")  # the recording Studio ships, until Run measures this machine
        self.badge.follow(self.panel)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.badge)
        layout.addWidget(body, 1)
        show_shipped(self.badge, "parallel_modes", self.form.request, self.show_result)

    # --- what CheckPanel asks of its view --------------------------------------------------------
    def set_params(self, params: dict[str, Any]) -> None:
        """The checks of this page carry no preset for the form; nothing to set."""

    def show_status(self, text: str, error: bool = False) -> None:
        self.panel.show_status(text, error)

    def show_verdicts(self) -> None:
        """The last paper-check outcomes as one line per check: its name and a coloured PASS/FAIL."""
        outcomes = self.check_panel.outcomes if self.check_panel is not None else []
        self.verdicts.setText("<br>".join(f"{verdict_html(o['verdict'])} {html.escape(o['name'])}" for o in outcomes))

    # --- the job -----------------------------------------------------------------------------------
    def run(self) -> None:
        """Read the form and start the measurement; a form that cannot be a request is refused in one sentence."""
        self.panel.submit(self.session, self._request)

    def _request(self) -> Any:
        self.submitted = self.form.request()  # the last request handed to the Session
        return self.submitted

    def show_result(self, result: dict[str, Any]) -> None:
        """Fill the timeline, the table and the plots from a ``ParallelResult``."""
        self.result = result
        stages = "; ".join(f"rank {i} holds {', '.join(s)}" for i, s in enumerate(result["stages"]))
        notes = "; ".join(n.rstrip(". ") for n in result.get("notes", []))  # what was not run, and why
        self.show_status(f"{result['ranks']} ranks on {result['device']} ({result['cores']} cores), "
                         f"{result['dataset']}, global batch {result['batch_size']}, {result['steps']} steps."
                         + (f" Stages: {stages}." if stages else "") + (f" Not run: {notes}." if notes else ""))
        self.show_partial(result)

    def show_partial(self, result: dict[str, Any]) -> None:
        """Draw the configurations measured so far (a frame while the job runs; its ``pending`` ones are listed,
        greyed, in the table): single and DDP are read while the pipelines still train."""
        self.timeline.show_rows(result["rows"])
        self.table.show_result(result)
        self.plots.show(result)

    def _table_selected(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        if rows:
            self.timeline.select(rows[0].row())
