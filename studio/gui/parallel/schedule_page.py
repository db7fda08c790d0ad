"""The Parallelism lab's Scheduling page: the run store's finished runs (their measured wall time and processes)
replayed on N simulated GPUs under FIFO, SJF, SRTF and LAS (Tiresias) — job completion time per policy (mean and
95th percentile), makespan, utilisation, a Gantt of each policy's jobs on the GPUs, and the Tiresias paper check.
The replay is ``engine/tasks/schedule.py`` in a background job (``core/scheduling``); no torch here."""

from __future__ import annotations

import math
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
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

from studio.core.contracts.schedule import ScheduleRequest
from studio.core.errors import ConfigError
from studio.core.scheduling.policies import LABELS, NAMES
from studio.gui.plots.empty_hint import EmptyHint
from studio.gui.plots.gantt import Bar, GanttPlot
from studio.gui.plots.palette import run_colour
from studio.gui.widgets.job_panel import JobPanel, Words
from studio.gui.widgets.recorded_badge import RecordedBadge, show_shipped

CHECK_NAME = "gu_tiresias_las"
CLAIM = ("<b>Claim.</b> Serving the job with the least GPU-time received so far (LAS, as Tiresias does) lets short "
         "jobs overtake long ones without knowing any duration: with heavy-tailed job sizes the mean job completion "
         "time (JCT) drops well below first-come-first-served (FIFO)'s, close to shortest-remaining-time-first "
         "(SRTF), which knows every duration. Jobs = your finished runs (measured wall time, processes as GPUs).")
COLUMNS = ("policy", "mean JCT", "median", "p95", "makespan", "GPU use", "preempt.")
TIMED = frozenset(COLUMNS[1:5])  # columns in the table's time unit
DEFAULT_POLICIES = ("fifo", "sjf", "las")
TOOLTIPS = {"fifo": "First in, first out: arrival order, never preempts; a job that does not fit holds up those "
                    "behind it (Apache YARN's capacity scheduler)",
            "sjf": "Shortest job first: knows every run's duration, never preempts",
            "srtf": "Shortest remaining time first: knows durations, preempts for a shorter job",
            "las": "Least attained service (Tiresias): the job with the least GPU-seconds so far runs first; "
                   "preempts every quantum; knows no durations"}
TIE = 1e-9  # mean JCTs this close (relatively) are a tie
MAX_JOB_KINDS = 8  # more jobs than this: the Gantt colours them short / medium / long, not one colour each


def time_unit(seconds: float) -> tuple[str, float]:
    """A unit to show times up to ``seconds`` in: (name, seconds per unit)."""
    if seconds >= 3 * 3600:
        return "h", 3600.0
    if seconds >= 180:
        return "min", 60.0
    return "s", 1.0


def lowest_mean_jct(rows: list[dict[str, Any]], unit: str, per: float) -> str:
    """Which policy gave the lowest mean JCT, in words: a tie is said to be one (policies that schedule these
    jobs alike give the same JCT to the last digit), and one policy alone is not "the lowest"."""
    means = [r["mean_jct"] for r in rows]
    low = min(means)
    best = [r for r in rows if math.isclose(r["mean_jct"], low, rel_tol=TIE, abs_tol=1e-12)]
    value = f"{low / per:.3g} {unit}"
    if len(rows) == 1:
        return f"Mean JCT under {rows[0]['label']}: {value}."
    if len(best) == len(rows):
        return f"All {len(rows)} policies tie on mean JCT ({value}): they schedule these jobs alike."
    names = " and ".join(r["label"] for r in best) if len(best) < 3 else \
        ", ".join(r["label"] for r in best[:-1]) + f" and {best[-1]['label']}"
    fifo = next((r for r in rows if r["policy"] == "fifo"), None)
    versus = (f", {fifo['mean_jct'] / low:.2f}× below FIFO's" if fifo is not None and fifo not in best and low > 0
              else "")
    return f"Lowest mean JCT: {names}{' (tied)' if len(best) > 1 else ''}{versus}."


class SchedulePage(QWidget):
    def __init__(self, session: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.result: dict[str, Any] | None = None
        self.panel = JobPanel("Run", words=Words(
            idle="Press Run to replay your finished runs on the simulated cluster.", starting="Replaying…",
            failed="{first_line}"))
        self.panel.run_clicked.connect(self.run)
        self.panel.done.connect(self.show_result)
        self._build_controls()
        self._build_views()

    # --- building ------------------------------------------------------------------------------
    def _build_controls(self) -> None:
        self.gpus = QSpinBox()
        self.gpus.setObjectName("schedule_gpus")
        self.gpus.setRange(1, 4096)
        self.gpus.setValue(4)
        self.gpus.setPrefix("GPUs ")
        self.gpus.setToolTip("GPUs in the simulated cluster (at least the most processes any of the runs used)")
        self.policy_boxes: dict[str, QCheckBox] = {}
        for name in NAMES:
            box = QCheckBox(LABELS[name].split(" ")[0])
            box.setObjectName(f"schedule_policy_{name}")
            box.setChecked(name in DEFAULT_POLICIES)
            box.setToolTip(TOOLTIPS[name])
            self.policy_boxes[name] = box
        self.arrivals = QComboBox()
        self.arrivals.setObjectName("schedule_arrivals")
        self.arrivals.addItem("arrive as queued", "recorded")
        self.arrivals.addItem("arrive together", "together")
        self.arrivals.setToolTip("As queued: each run arrives when it was queued (or created); together: all at "
                                 "time 0 (the textbook case where SJF provably beats FIFO)")
        self.repeat = QSpinBox()
        self.repeat.setObjectName("schedule_repeat")
        self.repeat.setRange(1, 10_000)
        self.repeat.setPrefix("× ")
        self.repeat.setToolTip("Repeat the runs K times, each copy arriving after the last, to make a bigger trace")
        self.filter = QLineEdit()
        self.filter.setObjectName("schedule_filter")
        self.filter.setPlaceholderText("which finished runs: a run filter, e.g. tag:sweep model:mlp (empty: all)")
        self.filter.setToolTip("The run list's filter language (as studio runs --filter): plain words, key:value, "
                               "comparisons such as test_acc>0.8; only finished runs are replayed")
        self.filter.returnPressed.connect(self.run)
        self.queued_only = QCheckBox("queued only")
        self.queued_only.setObjectName("schedule_queued_only")
        self.queued_only.setToolTip("Only the runs that went through the run queue (else every finished run, "
                                    "those trained with Train too)")
        self.panel.run_button.setObjectName("schedule_run")
        self.panel.run_button.setToolTip("Replay the runs on the simulated GPUs under each chosen policy")
        self.panel.cancel_button.setToolTip("Stop the replay")
        self.panel.bar.setMaximumHeight(12)
        self.panel.status.setObjectName("schedule_status")
        self.claim = QLabel(CLAIM)
        self.claim.setObjectName("schedule_claim")
        self.claim.setWordWrap(True)
        self.claim.setTextFormat(Qt.TextFormat.RichText)

    def _build_views(self) -> None:
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("schedule_table")
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.setToolTip("Per policy: job completion time (JCT = finish − arrival): mean, median and 95th "
                              "percentile; "
                              "makespan (first arrival to last finish); GPU utilisation over the makespan")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setMinimumSectionSize(36)
        self.jct = pg.PlotWidget()
        self.jct.setObjectName("schedule_jct")
        self.jct.setTitle("JCT per policy")
        self.jct.setMouseEnabled(x=False, y=False)
        self.jct.addLegend(offset=(10, 2), colCount=2)  # one row above the bars
        self.jct.showGrid(y=True, alpha=0.3)
        self.gantt = GanttPlot(x_label="time since the first arrival", x_units="s")
        self.gantt.setObjectName("schedule_gantt")
        self.gantt.getPlotItem().getAxis("bottom").enableAutoSIPrefix(False)
        self.gantt_policy = QComboBox()
        self.gantt_policy.setObjectName("schedule_gantt_policy")
        self.gantt_policy.setToolTip("Which policy's schedule the Gantt chart shows")
        self.gantt_policy.currentIndexChanged.connect(lambda _i: self._draw_gantt())
        self.gantt_caption = QLabel()
        self.gantt_caption.setObjectName("schedule_gantt_caption")
        self.gantt_caption.setWordWrap(True)  # wraps rather than widening the Gantt's column
        self.empty = [EmptyHint(self.jct, "Press Run: mean and 95th-percentile JCT for each policy"),
                      EmptyHint(self.gantt, "Press Run: each policy's jobs on the GPUs over time")]
        from studio.core.checks.catalog import get_check
        from studio.gui.widgets.check_panel import CheckPanel

        self.side_scroll = QScrollArea()  # the CheckPanel scrolls its result into view here
        self.side_scroll.setWidgetResizable(True)
        self.side_scroll.setMinimumWidth(260)
        self.check_panel = CheckPanel(self, [get_check(CHECK_NAME)])
        self.check_panel.setObjectName("schedule_check")
        self.verdict = QLabel()
        self.verdict.setObjectName("schedule_check_verdict")
        self.verdict.setToolTip("The paper check's verdict; its numbers are under the Gantt chart's right")
        self.check_panel.job.done.connect(self._show_verdict)
        holder = QWidget()
        column = QVBoxLayout(holder)
        column.addWidget(self.check_panel)
        column.addStretch(1)
        self.side_scroll.setWidget(holder)

        controls = self.panel.buttons  # the cluster's controls before Run and Cancel, the paper check after them
        for i, widget in enumerate((self.gpus, *self.policy_boxes.values())):
            controls.insertWidget(i, widget)
        controls.addStretch(1)
        controls.addWidget(self.check_panel.run_button)
        controls.addWidget(self.verdict)
        filter_row = QHBoxLayout()
        filter_row.addWidget(QLabel("Runs"))
        filter_row.addWidget(self.filter, 1)
        filter_row.addWidget(self.queued_only)
        filter_row.addWidget(self.arrivals)
        filter_row.addWidget(self.repeat)
        self.gantt_policy.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.gantt_policy.setMinimumContentsLength(14)
        gantt_box = QWidget()
        gantt_layout = QVBoxLayout(gantt_box)
        gantt_layout.setContentsMargins(0, 0, 0, 0)
        pick = QHBoxLayout()
        pick.addWidget(QLabel("Gantt of"))
        pick.addWidget(self.gantt_policy)
        pick.addWidget(self.gantt_caption, 1)
        gantt_layout.addLayout(pick)
        gantt_layout.addWidget(self.gantt, 1)
        top = QSplitter(Qt.Orientation.Horizontal)
        top.addWidget(self.table)
        top.addWidget(self.jct)
        top.setSizes([620, 300])
        bottom = QSplitter(Qt.Orientation.Horizontal)
        bottom.addWidget(gantt_box)
        bottom.addWidget(self.side_scroll)
        bottom.setSizes([600, 320])
        body = QSplitter(Qt.Orientation.Vertical)
        body.addWidget(top)
        body.addWidget(bottom)
        body.setSizes([200, 360])
        self.badge = RecordedBadge("Run")  # a synthetic trace's replay, until Run replays your runs
        self.badge.follow(self.panel)
        layout = QVBoxLayout(self)
        layout.addWidget(self.panel)
        layout.addLayout(filter_row)
        layout.addWidget(self.claim)
        layout.addWidget(self.badge)
        layout.addWidget(body, 1)
        show_shipped(self.badge, "parallel_schedule", self.request, self.show_result, ignore=("home",))

    # --- the CheckPanel's view ---------------------------------------------------------------
    def _show_verdict(self, outcomes: list[dict[str, Any]]) -> None:
        from studio.gui.widgets.paper_check import verdict_html

        self.verdict.setText(" ".join(verdict_html(o["verdict"]) for o in outcomes))

    def set_params(self, params: dict[str, Any]) -> None:
        """The paper check has no preset for this page (its traces are synthetic): nothing to put in a form."""

    def show_status(self, text: str, error: bool = False) -> None:
        self.panel.show_status(text, error)

    # --- running -------------------------------------------------------------------------------
    def request(self) -> ScheduleRequest:
        """The request the controls describe (ConfigError: no policy chosen, or a bad GPU count)."""
        from studio.core.scheduling.study import check_request

        policies = tuple(name for name, box in self.policy_boxes.items() if box.isChecked())
        if not policies:
            raise ConfigError("choose at least one policy to replay")
        request = ScheduleRequest(gpus=self.gpus.value(), policies=policies, filter=self.filter.text().strip(),
                                  arrivals=str(self.arrivals.currentData()), repeat=self.repeat.value(),
                                  queued_only=self.queued_only.isChecked(), home=str(self.session.store.home))
        check_request(request)
        return request

    def run(self) -> None:
        """Replay the runs the controls describe; controls that are not a request are refused in one sentence."""
        self.panel.submit(self.session, self.request)

    # --- showing -------------------------------------------------------------------------------
    def show_result(self, result: dict[str, Any]) -> None:
        self.result = result
        rows = result["policies"]
        jobs = result["jobs"]
        skipped = f"; {result['skipped']} finished runs had no measured duration" if result["skipped"] else ""
        how = "arriving as queued" if result["arrivals"] == "recorded" else "arriving together"
        unit, per = time_unit(max(max(r["p95_jct"] for r in rows), max(r["makespan"] for r in rows)))
        self.panel.show_status(f"{len(jobs)} jobs on {result['gpus']} GPUs ({how}{skipped}). "
                               f"{lowest_mean_jct(rows, unit, per)}")
        self.table.setRowCount(len(rows))
        self.table.setHorizontalHeaderLabels([f"{c}\n({unit})" if c in TIMED else c
                                              for c in COLUMNS])
        for i, r in enumerate(rows):
            cells = (r["label"], *(f"{r[k] / per:.3g}" for k in ("mean_jct", "median_jct", "p95_jct", "makespan")),
                     f"{r['utilisation']:.0%}", str(r["preemptions"]))
            for j, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if j:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(i, j, item)
        self._draw_jct(rows, unit, per)
        current = self.gantt_policy.currentData()
        self.gantt_policy.blockSignals(True)
        self.gantt_policy.clear()
        for r in rows:
            self.gantt_policy.addItem(r["label"], r["policy"])
        index = max(0, self.gantt_policy.findData(current if current else "las"))
        self.gantt_policy.setCurrentIndex(index)
        self.gantt_policy.blockSignals(False)
        self._draw_gantt()

    def _draw_jct(self, rows: list[dict[str, Any]], unit: str, per: float) -> None:
        self.jct.clear()
        self.empty[0].hide_hint()
        xs = list(range(len(rows)))
        for k, (key, name) in enumerate((("mean_jct", "mean"), ("p95_jct", "p95"))):
            self.jct.addItem(pg.BarGraphItem(x=[x - 0.2 + 0.4 * k for x in xs], height=[r[key] / per for r in rows],
                                             width=0.38, brush=run_colour(k), name=name))
        self.jct.getAxis("bottom").setTicks([[(x, r["policy"].upper()) for x, r in zip(xs, rows, strict=True)], []])
        self.jct.setLabel("left", f"JCT ({unit})")
        self.jct.setXRange(-0.6, len(rows) - 0.4, padding=0)
        self.jct.setYRange(0, 1.45 * max(r["p95_jct"] / per for r in rows), padding=0)  # room for the legend

    def _draw_gantt(self) -> None:
        if not self.result or self.gantt_policy.count() == 0:
            return
        policy = self.gantt_policy.currentData()
        row = next(r for r in self.result["policies"] if r["policy"] == policy)
        jobs = {j["id"]: j for j in self.result["jobs"]}
        unit, per = time_unit(row["makespan"])
        kinds = self._kinds(list(jobs.values()))
        bars = [Bar(g, start / per, end / per, kinds[placed["id"]], self._label(jobs[placed["id"]]))
                for placed in row["jobs"] for start, end, lanes in placed["intervals"] for g in lanes]
        self.empty[1].hide_hint()
        self.gantt.set_bars([f"GPU {g}" for g in range(self.result["gpus"])], bars)
        self.gantt.getPlotItem().getAxis("left").setWidth(56)  # "GPU 10" in full (the chart sizes for 8 px/char)
        self.gantt.getPlotItem().setYRange(-1.6, self.result["gpus"] - 0.4, padding=0)  # a row for the legend
        self.gantt.getPlotItem().setLabel("bottom", "time since the first arrival", units=unit)
        # in a QLabel, not the chart's title: a long pyqtgraph title sets the chart's minimum width
        self.gantt_caption.setText(f"mean JCT {row['mean_jct'] / per:.3g} {unit}, makespan "
                                   f"{row['makespan'] / per:.3g} {unit}, {row['preemptions']} preemptions")

    @staticmethod
    def _label(job: dict[str, Any]) -> str:
        gpus = f", {job['gpus']} GPUs" if job["gpus"] > 1 else ""
        return f"{job['name'] or job['id']} ({job['id']}{gpus})"

    @staticmethod
    def _kinds(jobs: list[dict[str, Any]]) -> dict[str, str]:
        """A colour group per job: the run itself (its copies with it) when there are few, else short / medium /
        long by duration."""
        def base(job_id: str) -> str:
            return job_id.split("#")[0]

        originals = {j["id"]: f"{(j['name'] or j['id'])[:24]} · {j['id'][-4:]}" for j in jobs if "#" not in j["id"]}
        if len(originals) <= MAX_JOB_KINDS:
            return {j["id"]: originals.get(base(j["id"]), j["id"]) for j in jobs}
        ordered = sorted(j["duration"] for j in jobs)
        low, high = ordered[len(ordered) // 3], ordered[2 * len(ordered) // 3]
        return {j["id"]: "short job" if j["duration"] < low else "long job" if j["duration"] >= high
                else "medium job" for j in jobs}
