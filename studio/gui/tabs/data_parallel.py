"""The Parallelism lab's Data-parallel scaling page: the current config trained at 1, 2, … processes (DDP; with
CUDA also single-process DataParallel) — throughput against linear scaling, each step split into compute,
all-reduce and the optimizer, and the steps to a target accuracy. The work is ``engine/tasks/dp_scaling.py`` in
a background job the Session follows (``gui/widgets/job_panel.JobPanel``).
"""

from __future__ import annotations

from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QLineEdit,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from studio.core.contracts.scaling import ScaleRequest
from studio.gui.plots.empty_hint import EmptyHint
from studio.gui.plots.palette import run_colour
from studio.gui.widgets.forms import TidySpinBox
from studio.gui.widgets.job_panel import JobPanel, Words
from studio.gui.widgets.recorded_badge import RecordedBadge, show_shipped

EXPLAIN = ("Each configuration trains the current config for the same steps at the same global batch (split over "
           "the processes), so the path — and the steps to the target — are the same; only time changes. "
           "All-reduce is measured: the backward pass with DDP's gradient sync minus the same pass under "
           "no_sync(). On a CPU, two processes share the same cores: they can only be faster where one "
           "process left cores idle; one process per GPU adds compute instead.")
COLUMNS = ("mode", "processes", "threads", "samples/s", "speed-up", "efficiency", "step ms", "compute ms",
           "all-reduce ms", "optimizer ms", "steps to target")


class DataParallelTab(QWidget):
    def __init__(self, session: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.result: dict[str, Any] | None = None
        self.panel = JobPanel("Measure", words=Words(idle=EXPLAIN, starting="Starting the processes…"))
        self.panel.run_clicked.connect(self.measure)
        self.panel.done.connect(self._on_done)

        self.processes = QLineEdit("1,2")
        self.processes.setObjectName("scale_processes")
        self.processes.setToolTip("Process counts to compare (one GPU each with CUDA), e.g. 1,2")
        self.steps = QSpinBox()
        self.steps.setRange(8, 100_000)
        self.steps.setValue(60)
        self.steps.setSuffix(" steps")
        self.steps.setToolTip("Training steps per configuration (the first few are warm-up and not timed)")
        self.target = TidySpinBox()
        self.target.setRange(0.0, 1.0)
        self.target.setSingleStep(0.05)
        self.target.setValue(0.75)
        self.target.setPrefix("target accuracy ")
        self.target.setToolTip("Validation accuracy whose first step is reported as 'steps to target'")
        self.measure_button = self.panel.run_button
        self.measure_button.setObjectName("scale_button")
        self.measure_button.setToolTip("Train the current config at each process count and measure it")
        self.cancel_button = self.panel.cancel_button
        self.cancel_button.setToolTip("Stop the measurement")
        self.bar, self.status = self.panel.bar, self.panel.status
        self.status.setObjectName("scale_status")

        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("scale_table")
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.setToolTip("One row per configuration; efficiency = throughput ÷ (processes × throughput of the "
                              "first row per process)")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)

        self.throughput = pg.PlotWidget()
        self.throughput.setObjectName("scale_throughput")
        self.throughput.setTitle("Throughput against linear scaling")
        self.throughput.setLabel("bottom", "processes")
        self.throughput.setLabel("left", "samples / s")
        self.throughput.showGrid(x=True, y=True, alpha=0.3)
        self.throughput.addLegend(offset=(10, 10))
        self.split = pg.PlotWidget()
        self.split.setObjectName("scale_split")
        self.split.setTitle("Time per step (rank 0)")
        self.split.setLabel("left", "ms")
        self.split.addLegend(offset=(10, 10))
        self.empty = [EmptyHint(self.throughput, "Press Measure: samples per second for each number of processes, "
                                                 "against perfect linear scaling"),
                      EmptyHint(self.split, "Press Measure: where a step's time goes (compute, all-reduce, "
                                            "optimizer)")]

        row = self.panel.buttons  # the settings of the measurement, then Measure and Cancel
        for i, w in enumerate((QLabel("Processes"), self.processes, self.steps, self.target)):
            row.insertWidget(i, w)
        row.addStretch(1)
        plots = QSplitter(Qt.Orientation.Horizontal)
        plots.addWidget(self.throughput)
        plots.addWidget(self.split)
        body = QSplitter(Qt.Orientation.Vertical)
        body.addWidget(self.table)
        body.addWidget(plots)
        body.setStretchFactor(1, 2)
        self.badge = RecordedBadge("Measure")  # the recording Studio ships, until Measure runs here
        self.badge.follow(self.panel)
        layout = QVBoxLayout(self)
        layout.addWidget(self.panel)
        layout.addWidget(self.badge)
        layout.addWidget(body, 1)
        show_shipped(self.badge, "data_parallel", self.request, self._on_done)

    def request(self) -> ScaleRequest:
        """What Measure asks for: the current training settings at the chosen process counts."""
        return ScaleRequest(self.session.config.to_dict(), self.processes.text().strip() or "1", self.steps.value(),
                            self.target.value())

    def measure(self) -> None:
        if self.panel.busy:
            return
        self.panel.start(self.session.start(self.request()))

    def _on_done(self, result: dict[str, Any]) -> None:
        self.result = result
        passive = ", OpenMP passive wait" if result.get("omp_wait_policy") == "PASSIVE" else ""
        self.panel.show_status(f"{result['model']} on {result['dataset']}, global batch {result['global_batch']}, "
                               f"{result['steps']} steps, {result['cores']} CPU cores (load average "
                               f"{result.get('load_avg') or 0:.1f}{passive}), "
                               f"{result['cuda_devices']} GPUs ({result['device']}). " + EXPLAIN)
        self.show_result(result)

    def show_result(self, result: dict[str, Any]) -> None:
        rows = result["rows"]
        self.table.setRowCount(len(rows))
        for i, r in enumerate(rows):
            cells = (r["mode"].upper(), r["processes"], r["threads"], f"{r['samples_per_s']:,.0f}",
                     f"{r['speedup']:.2f}×", f"{r['efficiency']:.0%}", f"{r['step_ms']:.2f}",
                     f"{r['compute_ms']:.2f}", f"{r['allreduce_ms']:.2f}", f"{r['optimizer_ms']:.2f}",
                     r["steps_to_target"] or "not reached")
            for j, v in enumerate(cells):
                item = QTableWidgetItem(str(v))
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(i, j, item)
        self.throughput.clear()
        self.split.clear()
        for hint in self.empty:
            hint.hide_hint()
        ddp = [r for r in rows if r["mode"] == "ddp"]
        if ddp:
            n = [r["processes"] for r in ddp]
            per = ddp[0]["samples_per_s"] / ddp[0]["processes"]
            self.throughput.plot(n, [per * k for k in n], pen=pg.mkPen(run_colour(7), style=Qt.PenStyle.DashLine),
                                 name="linear scaling")
            self.throughput.plot(n, [r["samples_per_s"] for r in ddp], pen=pg.mkPen(run_colour(0), width=2),
                                 symbol="o", symbolBrush=run_colour(0), name="DDP, measured")
        dp = [r for r in rows if r["mode"] == "dp"]
        if dp:
            self.throughput.plot([r["processes"] for r in dp], [r["samples_per_s"] for r in dp],
                                 pen=pg.mkPen(run_colour(3), width=2), symbol="s", symbolBrush=run_colour(3),
                                 name="DataParallel (1 process)")
        xs = list(range(len(rows)))
        bottom = [0.0] * len(rows)
        for k, (key, name) in enumerate((("compute_ms", "compute"), ("allreduce_ms", "all-reduce"),
                                         ("optimizer_ms", "optimizer step"))):
            heights = [max(0.0, r[key]) for r in rows]
            self.split.addItem(pg.BarGraphItem(x=xs, height=heights, y0=bottom, width=0.6,
                                               brush=run_colour(k), name=name))
            bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
        ticks = [(i, f"{r['mode'].upper()} ×{r['processes']}") for i, r in enumerate(rows)]
        self.split.getAxis("bottom").setTicks([ticks])
