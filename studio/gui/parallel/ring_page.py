"""The Parallelism lab's page "Ring all-reduce": p processes sum one vector with the ring (reduce-scatter then
all-gather, Patarasuk & Yuan 2009, as Horovod does), through a central server, and with torch's own all_reduce,
measured in a background job (``engine/tasks/allreduce.py``, the task ``ALLREDUCE``): each rank's bytes on the cost
model's lines, the time against p, one p's per-rank timeline, the numbers, and the paper check. No torch here."""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QFormLayout,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from studio.core.checks.catalog import CHECKS
from studio.core.contracts.allreduce import (
    ALGORITHMS,
    MAX_RANKS,
    MAX_REPEATS,
    MIN_RANKS,
    AllreduceRequest,
    parse_sizes,
    size_text,
    validate,
)
from studio.gui.parallel import page_frame
from studio.gui.parallel.ring_plots import RingPlots
from studio.gui.widgets.check_panel import CheckPanel
from studio.gui.widgets.job_panel import FAILURE_LINES, JobPanel, Words
from studio.gui.widgets.paper_check import verdict_html
from studio.gui.widgets.wheel_guard import guard_tree

CHECK_NAME = "sergeev_ring_allreduce"
CLAIM = ("<b>The claim.</b> To sum N bytes over p processes, a ring (Patarasuk &amp; Yuan 2009; Horovod) cuts the "
         "vector into p chunks and passes them round twice — reduce-scatter, then all-gather — so each process "
         "sends 2(p−1)/p·N bytes: never more than 2N, however many there are. A central server must take in and "
         "send back (p−1)·N, so its link's traffic grows with every worker.")
ALGORITHM_TIPS = {"ring": "The ring: p−1 steps of reduce-scatter and p−1 of all-gather with isend/irecv",
                  "server": "A central server: every process sends its vector to process 0, which adds and sends "
                            "the sum back to each",
                  "torch": "torch.distributed.all_reduce (gloo): the reference for the result and the time; it "
                           "does not report its bytes"}


def _tip(widget: QWidget, text: str) -> QWidget:
    widget.setToolTip(text)
    return widget


class RingPage(QWidget):
    """The form, the check and Run/Cancel on the left; the timeline above the plots and numbers on the right."""

    def __init__(self, session: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.result: dict[str, Any] | None = None
        self.submitted: AllreduceRequest | None = None
        defaults = AllreduceRequest()
        self.panel = JobPanel("Run", words=Words(idle="Choose the process counts and press Run.",
                                                 starting="Starting the processes…", refused="Not started: {message}"),
                              status_lines=FAILURE_LINES)  # a failed rank: its sentence and stderr lines
        self.panel.run_clicked.connect(self.run)
        self.panel.done.connect(self.show_result)
        self.panel.run_button.setObjectName("ring_run")
        _tip(self.panel.run_button, "Start the processes and sum the vector with every chosen algorithm")
        _tip(self.panel.cancel_button, "Stop the measurement (every process ends)")
        self.panel.status.setObjectName("ring_status")

        self.claim = QLabel(CLAIM)
        self.claim.setObjectName("ring_claim")
        self.claim.setWordWrap(True)
        self.claim.setTextFormat(Qt.TextFormat.RichText)
        self.rank_boxes: dict[int, QCheckBox] = {}
        ranks = QGridLayout()
        for i, p in enumerate(range(MIN_RANKS, MAX_RANKS + 1)):
            box = QCheckBox(str(p))
            box.setObjectName(f"ring_p_{p}")
            box.setChecked(p in defaults.ranks)
            box.setToolTip(f"Measure with {p} processes (the largest p also draws the timeline)")
            self.rank_boxes[p] = box
            ranks.addWidget(box, i // 4, i % 4)
        self.sizes = QLineEdit(", ".join(size_text(n) for n in defaults.sizes))
        self.sizes.setObjectName("ring_sizes")
        _tip(self.sizes, "The vector's sizes in bytes, with K or M, e.g. 1M, 16M (float32 numbers; the largest "
                         "draws the timeline and the time plot)")
        self.algorithm_boxes: dict[str, QCheckBox] = {}
        algorithms = QHBoxLayout()
        for algorithm in ALGORITHMS:
            box = QCheckBox(algorithm)
            box.setObjectName(f"ring_algorithm_{algorithm}")
            box.setChecked(True)
            box.setToolTip(ALGORITHM_TIPS[algorithm])
            self.algorithm_boxes[algorithm] = box
            algorithms.addWidget(box)
        self.repeats = QSpinBox()
        self.repeats.setRange(1, MAX_REPEATS)
        self.repeats.setValue(defaults.repeats)
        _tip(self.repeats, "Timed all-reduces of each (after one untimed warm-up): each time is their median")
        self.seed = QSpinBox()
        self.seed.setRange(0, 1_000_000)
        _tip(self.seed, "The seed of the vectors (whole numbers from −1000 to 1000: every sum is exact)")
        form = QFormLayout()
        form.addRow(QLabel("Processes p"))  # the choices under their label: the column stays narrow
        form.addRow(ranks)
        form.addRow("Sizes", self.sizes)
        form.addRow(QLabel("Algorithms"))
        form.addRow(algorithms)
        form.addRow("Repeats", self.repeats)
        form.addRow("Seed", self.seed)

        check = CHECKS.get(CHECK_NAME)
        self.check_panel = CheckPanel(self, [check]) if check else None
        self.verdicts = QLabel("")
        self.verdicts.setObjectName("ring_check_verdicts")
        self.verdicts.setTextFormat(Qt.TextFormat.RichText)
        if self.check_panel is not None:
            self.check_panel.job.done.connect(lambda _outcomes: self.show_verdicts())

        side = QWidget()
        side_layout = QVBoxLayout(side)
        side_layout.addLayout(form)
        if self.check_panel is not None:
            side_layout.addWidget(self.check_panel)
        side_layout.addStretch(1)
        column, self.side_scroll = page_frame.side_column(side, self.panel)

        self.plots = RingPlots()
        charts = QWidget()
        row = QHBoxLayout(charts)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.plots.bytes)
        row.addWidget(self.plots.time)
        self.views = QTabWidget()
        self.views.setObjectName("ring_views")
        self.views.setDocumentMode(True)
        self.views.addTab(charts, "Bytes and time")
        self.views.addTab(self.plots.table, "Numbers")
        self.views.setTabToolTip(0, "Each rank's bytes against the cost model; the time against p")
        self.views.setTabToolTip(1, "Every algorithm at every p and size")
        body = page_frame.body(column, self.plots.timeline, self.views, [260, 340], 250)
        top = page_frame.claim_row(self.claim, self.check_panel, self.verdicts)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(body, 1)
        guard_tree(self)  # built on first view, after the window guarded its tabs: the wheel scrolls the form

    # --- what CheckPanel asks of its view ------------------------------------------------------------------------
    def set_params(self, params: dict[str, Any]) -> None:
        """The check carries no preset for the form; nothing to set."""

    def show_status(self, text: str, error: bool = False) -> None:
        self.panel.show_status(text, error)

    def show_verdicts(self) -> None:
        outcomes = self.check_panel.outcomes if self.check_panel is not None else []
        self.verdicts.setText("<br>".join(f"{verdict_html(o['verdict'])} {html.escape(o['name'])}" for o in outcomes))

    # --- the job -------------------------------------------------------------------------------------------------
    def request(self) -> AllreduceRequest:
        """The form as a request; ConfigError (one sentence) on what cannot be one."""
        request = AllreduceRequest(ranks=tuple(p for p, box in self.rank_boxes.items() if box.isChecked()),
                                   sizes=parse_sizes(self.sizes.text()),
                                   algorithms=tuple(a for a, box in self.algorithm_boxes.items() if box.isChecked()),
                                   repeats=self.repeats.value(), seed=self.seed.value())
        validate(request)
        return request

    def run(self) -> None:
        self.panel.submit(self.session, self._submit)

    def _submit(self) -> AllreduceRequest:
        self.submitted = self.request()
        return self.submitted

    def show_result(self, result: dict[str, Any]) -> None:
        self.result = result
        self.plots.show(result)
        crowded = max(result["ranks"]) > result["cores"]
        self.show_status(
            f"p = {', '.join(map(str, result['ranks']))} on {result['cores']} cores (load {result['load']:.1f}), "
            f"{', '.join(size_text(n) for n in result['sizes'])}, medians of {result['repeats']} runs."
            + (" More processes than cores take turns: wall time measures the machine's scheduling as much as the "
               "algorithm; CPU time counts each process's work and the network work the kernel charged it."
               if crowded else ""))
