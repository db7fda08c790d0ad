"""The Parallelism lab's "Async SGD" page: a parameter server and k workers over ``torch.distributed.rpc`` —
synchronous rounds against asynchronous pushes (and the staleness-aware learning rate), Hogwild in shared memory,
with an injected straggler. Shown: the loss against applied updates and against wall time, the staleness
histogram, each worker's applied gradients, a summary table, and the paper check. The work runs in a background
job (``engine/tasks/async_sgd.py``); no torch here."""

from __future__ import annotations

from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from studio.core.checks.catalog import CHECKS
from studio.core.contracts.async_sgd import MAX_WORKERS, AsyncRequest, parse_delays, validate
from studio.core.errors import ConfigError
from studio.gui.plots.empty_hint import EmptyHint
from studio.gui.plots.log_axis import LogAxis
from studio.gui.plots.palette import run_colour
from studio.gui.widgets.job_panel import FAILURE_LINES, JobPanel, Words
from studio.gui.widgets.recorded_badge import RecordedBadge, show_shipped

CHECK_NAME = "chen_async_straggler"
CLAIM = ("<b>Claim.</b> With a straggler, a synchronous parameter server waits for the slowest worker every round; "
         "asynchronous SGD applies each gradient as it arrives, so it makes many more updates per second and reaches "
         "a lower loss in the same wall time — but its gradients are stale (computed on weights several updates "
         "old), so each update helps less than a synchronous one. Zhang et al. (2016) divide the learning rate by the "
         "staleness to tame stale gradients (switch it on to compare: with 3 workers the staleness is about 1.5 "
         "and the effect is within run-to-run noise here). Hogwild: workers share one model in memory, no lock.")
COLOURS = {"sync": 0, "async": 1, "async-sa": 2, "hogwild": 3}
SHORT = {"sync": "sync", "async": "async", "async-sa": "async, lr ÷ τ", "hogwild": "Hogwild"}
COLUMNS = ("mode", "updates/s", "updates", "loss", "test acc", "mean τ")
MAX_BARS = 20  # staleness bins drawn; larger ones are added into the last bar


def _tip(widget: QWidget, text: str) -> QWidget:
    widget.setToolTip(text)
    return widget


class AsyncPage(QWidget):
    """The form, the claim, the table and the paper check on the left; Run/Cancel below; the plots on the right."""

    def __init__(self, session: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.result: dict[str, Any] | None = None
        self.panel = JobPanel("Run", words=Words(idle="Press Run: the processes start in a few seconds.",
                                                 starting="Starting the parameter server and the workers…"),
                              status_lines=FAILURE_LINES)  # a narrow column: the summary and a refusal take three
        self.panel.run_clicked.connect(self.run)
        self.panel.done.connect(self.show_result)

        self.claim = QLabel(CLAIM)
        self.claim.setWordWrap(True)
        self.claim.setObjectName("async_claim")
        self.workers = QSpinBox()
        self.workers.setRange(1, MAX_WORKERS)
        self.workers.setValue(3)
        _tip(self.workers, "Worker processes computing gradients (the parameter server is one more process)")
        self.delays = QLineEdit("0,0,0.05")
        self.delays.setObjectName("async_delays")
        _tip(self.delays, "Seconds each worker sleeps per gradient, in worker order: 0,0,0.05 makes the third "
                          "worker a straggler")
        self.mode_boxes: dict[str, QCheckBox] = {}
        modes = QGridLayout()  # two by two: the side column stays narrow enough for the plots at 1024 px
        tips = (("sync", "Synchronous: the server waits for all k gradients of a round, applies their mean"),
                ("async", "Asynchronous: the server applies each gradient as it arrives"),
                ("hogwild", "Hogwild: k processes update one model in shared memory, lock-free"))
        for i, (mode, tip) in enumerate(tips):
            box = QCheckBox(mode)
            box.setChecked(True)
            box.setToolTip(tip)
            self.mode_boxes[mode] = box
            modes.addWidget(box, i // 2, i % 2)
        self.staleness_aware = QCheckBox("async, lr ÷ τ")
        self.staleness_aware.setChecked(True)
        _tip(self.staleness_aware, "Add the staleness-aware variant: each gradient's learning rate divided by how "
                                   "many updates old it is (Zhang et al. 2016)")
        self.budget_kind = QComboBox()
        self.budget_kind.addItems(["updates", "seconds"])
        _tip(self.budget_kind, "Stop each mode after this many applied updates, or after this much wall time")
        self.budget = QSpinBox()
        self.budget.setRange(1, 100_000)
        self.budget.setValue(300)
        _tip(self.budget, "Applied updates (or seconds) per mode")
        self.budget_kind.currentTextChanged.connect(self._budget_kind_changed)
        self.batch = QSpinBox()
        self.batch.setRange(1, 4096)
        self.batch.setValue(32)
        _tip(self.batch, "Mini-batch of each worker per gradient")
        self.lr = QLineEdit("0.05")
        _tip(self.lr, "Learning rate of the server's SGD (and of each Hogwild worker)")
        self.seed = QSpinBox()
        self.seed.setRange(0, 1_000_000)
        _tip(self.seed, "Seed of the initial weights and of every worker's mini-batches")

        form = QFormLayout()
        form.addRow("Workers", self.workers)
        form.addRow("Delays (s)", self.delays)
        modes.addWidget(self.staleness_aware, 1, 1)
        form.addRow("Modes", modes)
        budget = QHBoxLayout()
        budget.addWidget(self.budget)
        budget.addWidget(self.budget_kind)
        form.addRow("Budget", budget)
        form.addRow("Batch", self.batch)
        form.addRow("lr", self.lr)
        form.addRow("Seed", self.seed)

        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("async_table")
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.setToolTip("One row per mode: applied updates per second, updates, the final loss on 2,000 "
                              "training images, the test accuracy, and the mean staleness τ of the applied gradients "
                              "(how many updates old they were)")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.setMinimumHeight(130)

        from studio.gui.widgets.check_panel import CheckPanel

        self.check = CHECKS.get(CHECK_NAME)
        self.check_panel = CheckPanel(self, [self.check]) if self.check else None

        side = QWidget()
        side_layout = QVBoxLayout(side)
        side_layout.addWidget(self.claim)
        side_layout.addLayout(form)
        side_layout.addWidget(self.table)
        if self.check_panel is not None:
            row = QHBoxLayout()
            row.addWidget(self.check_panel.run_button)
            row.addStretch(1)
            side_layout.addLayout(row)
            side_layout.addWidget(self.check_panel)
        side_layout.addStretch(1)
        self.side_scroll = QScrollArea()
        self.side_scroll.setWidget(side)
        self.side_scroll.setWidgetResizable(True)

        self.panel.run_button.setObjectName("async_run")
        _tip(self.panel.run_button, "Start the parameter server and the workers, and train in every chosen mode")
        _tip(self.panel.cancel_button, "Stop the study (every process of it is ended)")
        _tip(self.panel.bar, "Progress over the modes")
        self.panel.status.setObjectName("async_status")
        self.panel.buttons.addStretch(1)
        column = QWidget()
        column_layout = QVBoxLayout(column)
        column_layout.setContentsMargins(0, 0, 0, 0)
        column_layout.addWidget(self.side_scroll, 1)
        column_layout.addWidget(self.panel)

        self.by_update = self._plot("async_loss_updates", "Loss vs updates", "applied updates (log)", "loss",
                                    "The loss on 2,000 training images after each applied update (log scale: sync "
                                    "makes far fewer updates); per update, lower is better", log_x=True)
        self.by_update.setLogMode(x=True, y=False)
        self.by_update.addLegend(offset=(10, -10), labelTextSize="8pt", verSpacing=-6)  # bottom left: empty
        self.by_time = self._plot("async_loss_time", "Loss vs wall time", "seconds", "loss",
                                  "The same loss against wall-clock seconds since the mode started")
        self.staleness = self._plot("async_staleness", "Staleness τ", "updates old when applied",
                                    "share of gradients", "How many updates each applied gradient was old (the "
                                    "server's version minus the one it was computed on), as a share of the mode's "
                                    "applied gradients; sync's are all 0")
        self.per_worker = self._plot("async_workers", "Share per worker", "worker (delay)", "share of updates",
                                     "Each worker's share of the mode's applied gradients: in sync every worker "
                                     "counts the same; in async the straggler contributes little")
        self.hints = [EmptyHint(self.by_update, "Press Run: the loss after each applied update, per mode"),
                      EmptyHint(self.by_time, "Press Run: the loss against wall-clock seconds, per mode"),
                      EmptyHint(self.staleness, "Press Run: how many updates old each applied gradient was"),
                      EmptyHint(self.per_worker, "Press Run: how many gradients of each worker were applied")]
        plots = QWidget()
        grid = QGridLayout(plots)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.addWidget(self.by_update, 0, 0)
        grid.addWidget(self.by_time, 0, 1)
        grid.addWidget(self.staleness, 1, 0)
        grid.addWidget(self.per_worker, 1, 1)

        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(column)
        split.addWidget(plots)
        split.setStretchFactor(0, 0)
        split.setStretchFactor(1, 1)
        split.setSizes([270, 1000])
        column.setMinimumWidth(240)
        self.badge = RecordedBadge("Run")  # the recording Studio ships, until Run measures this machine
        self.badge.follow(self.panel)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.badge)
        layout.addWidget(split)
        show_shipped(self.badge, "parallel_async", self.request, self.show_result)

    def _plot(self, name: str, title: str, bottom: str, left: str, tip: str, log_x: bool = False) -> pg.PlotWidget:
        plot = pg.PlotWidget(axisItems={"bottom": LogAxis("bottom")} if log_x else None)
        plot.setObjectName(name)
        plot.setTitle(title, size="10pt")
        plot.setLabel("bottom", bottom)
        plot.setLabel("left", left)
        plot.showGrid(x=True, y=True, alpha=0.3)
        plot.setToolTip(tip)
        plot.getAxis("left").enableAutoSIPrefix(False)  # shares as 0.5, not 500 (×0.001)
        plot.setMinimumSize(130, 140)
        return plot

    # --- the job -------------------------------------------------------------------------------------------------
    def run(self) -> None:
        """Start the form's request; a form that is not one is refused in one sentence on the status line."""
        self.panel.submit(self.session, self.request)

    def show_status(self, text: str, error: bool = False) -> None:
        """A line on the page's status line (the CheckPanel's view writes here too)."""
        self.panel.show_status(text, error)

    # --- the form ------------------------------------------------------------------------------------------------
    def _budget_kind_changed(self, kind: str) -> None:
        self.budget.setValue(5 if kind == "seconds" else 300)

    def request(self) -> AsyncRequest:
        """The form as a request; ConfigError (one sentence) on a bad value."""
        try:
            lr = float(self.lr.text())
        except ValueError:
            raise ConfigError(f"The learning rate is a number, e.g. 0.05 (not {self.lr.text()!r}).") from None
        seconds = self.budget_kind.currentText() == "seconds"
        modes = tuple(m for m, box in self.mode_boxes.items() if box.isChecked())
        if not modes:
            raise ConfigError("Tick at least one mode: sync, async or hogwild.")
        try:
            delays = parse_delays(self.delays.text())
        except ConfigError:  # its words name the command line's option; these name the field
            raise ConfigError(f"Delays are seconds per gradient, one per worker, separated by commas, e.g. "
                              f"0,0,0.05 (not {self.delays.text()!r}).") from None
        request = AsyncRequest(workers=self.workers.value(), batch_size=self.batch.value(),
                               updates=0 if seconds else self.budget.value(),
                               seconds=float(self.budget.value()) if seconds else 0.0, lr=lr,
                               delays=delays, modes=modes,
                               staleness_aware=self.staleness_aware.isChecked() and "async" in modes,
                               seed=self.seed.value())
        validate(request)
        return request

    def set_params(self, values: dict[str, Any]) -> None:
        """Put a check's set-up (``PaperCheck.preset``) in the form."""
        if "workers" in values:
            self.workers.setValue(int(values["workers"]))
        if "delays" in values:
            self.delays.setText(str(values["delays"]))
        if "modes" in values:
            for mode, box in self.mode_boxes.items():
                box.setChecked(mode in str(values["modes"]).split(","))
        if "staleness_aware" in values:
            self.staleness_aware.setChecked(bool(values["staleness_aware"]))
        if values.get("seconds"):
            self.budget_kind.setCurrentText("seconds")
            self.budget.setValue(int(values["seconds"]))
        elif values.get("updates"):
            self.budget_kind.setCurrentText("updates")
            self.budget.setValue(int(values["updates"]))
        if "batch_size" in values:
            self.batch.setValue(int(values["batch_size"]))
        if "lr" in values:
            self.lr.setText(f"{float(values['lr']):g}")
        if "seed" in values:
            self.seed.setValue(int(values["seed"]))

    # --- the result ------------------------------------------------------------------------------------------------
    def show_result(self, result: dict[str, Any]) -> None:
        self.result = result
        rows = result["rows"]
        delays = ", ".join(f"{d:g}" for d in result["delays"])
        self.show_status(f"{result['workers']} workers (delays {delays} s), batch {result['batch_size']} each, "
                         f"lr {result['lr']:g}, {result['cores']} CPU cores.")
        self.table.setRowCount(len(rows))
        for i, r in enumerate(rows):
            cells = (SHORT.get(r["mode"], r["mode"]), f"{r['updates_per_s']:,.1f}", r["updates"],
                     f"{r['final_loss']:.3f}", f"{r['test_acc']:.1%}", f"{r['mean_staleness']:.2f}")
            for j, value in enumerate(cells):
                item = QTableWidgetItem(str(value))
                if j:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(i, j, item)
        for plot in (self.by_update, self.by_time, self.staleness, self.per_worker):
            plot.clear()
        for hint in self.hints:
            hint.hide_hint()
        for r in rows:
            colour = run_colour(COLOURS.get(r["mode"], 4))
            pen = pg.mkPen(colour, width=2)
            curve = r["curve"]
            later = [p for p in curve if p["update"] > 0]  # a log axis: from the first update on
            self.by_update.plot([p["update"] for p in later], [p["loss"] for p in later], pen=pen,
                                name=SHORT.get(r["mode"], r["mode"]))
            self.by_time.plot([p["seconds"] for p in curve], [p["loss"] for p in curve], pen=pen)
        self._bars(self.staleness, rows, lambda r: _shares(_clip(r["staleness"], MAX_BARS)))
        self._bars(self.per_worker, rows, lambda r: _shares(r["worker_updates"]))
        top = max((len(_clip(r["staleness"], MAX_BARS)) for r in rows), default=1)
        if top >= MAX_BARS:
            self.staleness.setLabel("bottom", f"τ (last bar: ≥ {MAX_BARS - 1})")
        self.per_worker.getAxis("bottom").setTicks([[(w, f"{w}: {d:g} s" if d else str(w))
                                                     for w, d in enumerate(result["delays"])]])

    def _bars(self, plot: pg.PlotWidget, rows: list[dict[str, Any]], values: Any) -> None:
        width = 0.8 / max(len(rows), 1)
        for k, r in enumerate(rows):
            heights = values(r)
            xs = [i - 0.4 + width * (k + 0.5) for i in range(len(heights))]
            plot.addItem(pg.BarGraphItem(x=xs, height=heights, width=width,
                                         brush=run_colour(COLOURS.get(r["mode"], 4)), pen=None))


def _shares(counts: list[int]) -> list[float]:
    total = sum(counts)
    return [c / total if total else 0.0 for c in counts]


def _clip(counts: list[int], bars: int) -> list[int]:
    """At most ``bars`` bins: everything beyond in the last one."""
    return counts if len(counts) <= bars else counts[:bars - 1] + [sum(counts[bars - 1:])]
