"""The Parallelism lab's "Input pipeline" page: is the model waiting for data? A DataLoader that decodes image
files per item, timed at each worker count (pin_memory and persistent workers as asked), beside Studio's
device-resident path; a bar per configuration (samples/s, its waiting share marked), the verdict in plain words,
and the Mohan et al. data-stalls paper check. The work is ``engine/tasks/dataload.py`` in a background job
(``gui/widgets/job_panel.JobPanel``); no torch in this process."""

from __future__ import annotations

import html
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from studio.core.checks.catalog import CHECKS
from studio.core.contracts.dataload import DataloadRequest, validate
from studio.gui.plots.empty_hint import EmptyHint
from studio.gui.plots.palette import run_colour
from studio.gui.session import theme
from studio.gui.session.session import registry_for
from studio.gui.widgets.check_panel import CheckPanel
from studio.gui.widgets.job_panel import JobPanel, Words
from studio.gui.widgets.recorded_badge import RecordedBadge, show_shipped

CHECK_NAME = "mohan_data_stalls"
CLAIM = ("Claim: when every item is decoded from an image file, the training step spends much of its time "
         "waiting for data. DataLoader workers decode in parallel and cut the wait until the cores run out; "
         "data preloaded on the device (Studio's own path: decoded once, a batch is an index gather) barely "
         "waits at all.")
COLUMNS = ("configuration", "samples/s", "× 0 workers", "step ms", "waiting ms", "compute ms", "waiting",
           "epoch start ms", "cores", "GPU")
FOLDER, DATASET = "folder", "dataset"


class DataloadPage(QWidget):
    """The form, Run/Cancel and progress; the verdict; the chart and the table; the claim and the paper check."""

    def __init__(self, session: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.result: dict[str, Any] | None = None
        self.panel = JobPanel("Run", arrange="inline", words=Words(
            idle="Pick a folder of images (or the current dataset) and press Run.",
            starting="Starting the measurement…"))
        self.panel.run_clicked.connect(self.run)
        self.panel.done.connect(self.show_result)

        self.source = QComboBox()
        self.source.setObjectName("dataload_source")
        self.source.addItem("A folder of images", FOLDER)
        self.source.addItem("The current dataset", DATASET)
        self.source.setToolTip("Where the images come from: a folder with one subfolder per class, or the current "
                               "dataset (its import folder, or its images written once as PNG files)")
        self.folder = QLineEdit()
        self.folder.setObjectName("dataload_folder")
        self.folder.setPlaceholderText("a folder of class subfolders of images")
        self.folder.setToolTip("A folder with one subfolder per class, each holding image files (PNG, JPEG, …)")
        self.browse = QPushButton("Browse…")
        self.browse.setToolTip("Pick the folder of images")
        self.browse.clicked.connect(self._browse)
        self.workers = QLineEdit("0,1,2,4")
        self.workers.setObjectName("dataload_workers")
        self.workers.setMinimumWidth(64)
        self.workers.setMaximumWidth(90)
        self.workers.setToolTip("DataLoader worker counts to compare, e.g. 0,1,2,4 (0: the training process "
                                "decodes the images itself)")
        self.pin = QCheckBox("pin_memory")
        self.pin.setToolTip("Also measure pin_memory=True: page-locked batches copy to a GPU faster. CUDA only; "
                            "n/a on the CPU")
        self.persistent = QCheckBox("persistent workers")
        self.persistent.setChecked(True)
        self.persistent.setToolTip("Also measure persistent_workers=True: the workers stay alive between epochs, "
                                   "so an epoch does not start by starting them again")
        self.batch = _spin(1, 4096, 64, "batch ", "Samples per training step")
        self.steps = _spin(4, 100_000, 60, "", "Training steps per configuration, spread over 2 epochs", " steps")
        self.prefetch = _spin(1, 64, 2, "prefetch ", "Batches each worker loads ahead (prefetch_factor)")
        self.panel.run_button.setObjectName("dataload_run")
        self.panel.run_button.setToolTip("Measure every configuration on these images (in the background)")
        self.panel.cancel_button.setObjectName("dataload_cancel")
        self.panel.cancel_button.setToolTip("Stop the measurement; its DataLoader workers stop with it")
        self.panel.bar.setToolTip("How far the measurement is")
        self.panel.status.setObjectName("dataload_status")
        self.verdict = QLabel("The verdict appears here: how much of each step the model waited for data, and "
                              "what to do about it.")
        self.verdict.setObjectName("dataload_verdict")
        self.verdict.setWordWrap(True)
        self.verdict.setTextFormat(Qt.TextFormat.RichText)
        self.verdict.setToolTip("The verdict, about the plainest loader (fewest workers) with the fixes measured")

        self.chart = pg.PlotWidget()
        self.chart.setObjectName("dataload_chart")
        self.chart.setLabel("left", "samples / s")
        self.chart.showGrid(y=True, alpha=0.3)
        self.chart.getAxis("bottom").setHeight(44)  # two-line configuration names
        self.chart.setMouseEnabled(x=False, y=False)
        self.chart.setMenuEnabled(False)
        self.chart.setToolTip("One bar per configuration: its height is samples/s; the lower part is the "
                              "share of each step spent computing, the hatched upper part (its % above the bar) "
                              "the share spent waiting for data")
        self.chart.setMinimumHeight(180)
        self.empty = EmptyHint(self.chart, "Press Run: samples/s per configuration, with the share of each step "
                                           "spent waiting for data")
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("dataload_table")
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setMinimumHeight(110)
        self.table.setToolTip("Per configuration: waiting = next(loader) and the copy to the device; compute = "
                              "forward, backward and the optimizer step; epoch start = the first batch of a "
                              "later epoch (workers started again unless persistent); cores = CPU seconds per "
                              "second, workers included")

        self.claim = QLabel(CLAIM)
        self.claim.setObjectName("dataload_claim")
        self.claim.setWordWrap(True)
        self.claim.setToolTip("What this page demonstrates; the paper check below reproduces it")
        self.check = CheckPanel(self, [CHECKS[CHECK_NAME]])
        self.check.run_button.setToolTip("Run the data-stalls paper check: its own 400 PNG files, 0 workers "
                                         "against as many as cores and the device-resident path (about a minute)")
        side = QWidget()
        side_layout = QVBoxLayout(side)
        side_layout.addWidget(self.claim)
        side_layout.addWidget(self.check.run_button, 0, Qt.AlignmentFlag.AlignLeft)
        side_layout.addWidget(self.check)
        side_layout.addStretch(1)
        self.side_scroll = QScrollArea()
        self.side_scroll.setWidgetResizable(True)
        self.side_scroll.setWidget(side)
        self.side_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.side_scroll.setMinimumWidth(200)

        form = QGridLayout()
        form.addWidget(self.source, 0, 0, 1, 2)
        form.addWidget(self.folder, 0, 2, 1, 3)
        form.addWidget(self.browse, 0, 5)
        flags = QHBoxLayout()
        flags.addWidget(QLabel("Workers"))
        for w in (self.workers, self.pin, self.persistent):
            flags.addWidget(w)
        flags.addStretch(1)
        form.addLayout(flags, 1, 0, 1, 6)
        sizes = QHBoxLayout()
        for box in (self.batch, self.steps, self.prefetch):
            sizes.addWidget(box)
        sizes.addStretch(1)
        form.addLayout(sizes, 2, 0, 1, 6)
        form.addWidget(self.panel, 3, 0, 1, 6)
        form.setColumnStretch(2, 1)
        results = QSplitter(Qt.Orientation.Vertical)
        results.addWidget(self.chart)
        results.addWidget(self.table)
        results.setStretchFactor(0, 3)
        results.setStretchFactor(1, 2)
        main = QWidget()
        main_layout = QVBoxLayout(main)
        main_layout.setContentsMargins(0, 0, 0, 0)
        main_layout.addLayout(form)
        main_layout.addWidget(self.verdict)
        main_layout.addWidget(results, 1)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(main)
        split.addWidget(self.side_scroll)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        split.setSizes([700, 300])
        self.badge = RecordedBadge("Run")  # the recording Studio ships, until Run measures this machine
        self.badge.follow(self.panel)
        layout = QVBoxLayout(self)
        layout.addWidget(self.badge)
        layout.addWidget(split)
        self.source.currentIndexChanged.connect(self._source_changed)
        self._source_changed()
        show_shipped(self.badge, "parallel_dataload", self.request, self.show_result)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt's name
        """A new theme (palette): redraw the chart's labels in its text colour."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and self.result is not None:
            self._draw(self.result["rows"])

    # --- the job -------------------------------------------------------------------------------
    def run(self) -> None:
        """Start the form's request; a form that is not one is refused in one sentence on the status line."""
        self.panel.submit(self.session, self.request)

    # --- the CheckPanel's view -----------------------------------------------------------------
    def set_params(self, _values: dict[str, Any]) -> None:
        """The check has no preset to put in this form."""

    def show_status(self, text: str, error: bool = False) -> None:
        self.panel.show_status(text, error)

    # --- the form ------------------------------------------------------------------------------
    def _source_changed(self) -> None:
        from_folder = self.source.currentData() == FOLDER
        self.folder.setEnabled(from_folder)
        self.browse.setEnabled(from_folder)
        self.source.setItemText(1, f"The current dataset ({self.session.config.data.name})")

    def _browse(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "A folder of images in class subfolders", self.folder.text())
        if folder:
            self.folder.setText(folder)

    def request(self) -> DataloadRequest:
        """The form as a checked request (ConfigError: one sentence)."""
        from_folder = self.source.currentData() == FOLDER
        if from_folder and not self.folder.text().strip():
            from studio.core.errors import ConfigError

            raise ConfigError("pick a folder of images first (or choose the current dataset)")
        data = self.session.config.data
        code = not from_folder and "loader" in registry_for("data").get(data.name).tags  # read by a DataLoader
        return validate(DataloadRequest(
            folder=self.folder.text().strip() if from_folder else "", data_params=dict(data.params) if code else None,
            dataset="" if from_folder else data.name, workers=self.workers.text().strip(),
            pin_memory=self.pin.isChecked(), persistent=self.persistent.isChecked(), batch_size=self.batch.value(),
            steps=self.steps.value(), prefetch_factor=self.prefetch.value()))

    # --- the result ----------------------------------------------------------------------------
    def show_result(self, result: dict[str, Any]) -> None:
        self.result = result
        shape = "×".join(str(s) for s in result["shape"])
        notes = " ".join(f"{n[0].upper()}{n[1:]}." for n in result["notes"])
        self.show_status(
            f"{result['images']:,} images ({shape}, {result['classes']} classes), {result['model']} at batch "
            f"{result['batch_size']}, {result['steps']} steps per configuration on the {result['device']} "
            f"({result['cores']} cores, workers start by {result['start_method']}); decoding every image once took "
            f"{result['preload_s']:.1f} s. pin_memory: {result['pin_memory']}. {notes}")
        self.verdict.setText(verdict_html(result["verdict"], result["bottleneck"]))
        self._fill_table(result["rows"])
        self._draw(result["rows"])

    def _fill_table(self, rows: list[dict[str, Any]]) -> None:
        self.table.setRowCount(len(rows))
        for i, r in enumerate(rows):
            gpu = "—" if r.get("gpu_util") is None else f"{r['gpu_util']:.0f} %"
            cells = (r["label"], f"{r['samples_per_s']:,.0f}", f"{r['speedup']:.2f}×", f"{r['step_ms']:.1f}",
                     f"{r['wait_ms']:.1f}", f"{r['compute_ms']:.1f}", f"{r['wait_share']:.0%}",
                     f"{r['epoch_start_ms']:.0f}", f"{r.get('cpu_cores', 0.0):.1f}", gpu)
            for j, value in enumerate(cells):
                item = QTableWidgetItem(value)
                if j:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(i, j, item)

    def _draw(self, rows: list[dict[str, Any]]) -> None:
        self.chart.clear()
        self.empty.hide_hint()
        xs = list(range(len(rows)))
        totals = [r["samples_per_s"] for r in rows]
        computing = [t * (1 - r["wait_share"]) for t, r in zip(totals, rows, strict=True)]
        waiting = [t - c for t, c in zip(totals, computing, strict=True)]
        compute_colour, wait_colour = run_colour(0), run_colour(3)
        self.chart.addItem(pg.BarGraphItem(x=xs, height=computing, width=0.6, brush=compute_colour,
                                           pen=pg.mkPen(compute_colour)))
        wait_brush = pg.mkBrush(wait_colour)
        wait_brush.setStyle(Qt.BrushStyle.BDiagPattern)
        self.chart.addItem(pg.BarGraphItem(x=xs, height=waiting, y0=computing, width=0.6, brush=wait_brush,
                                           pen=pg.mkPen(wait_colour, width=1.5)))
        top = max(totals, default=1.0) or 1.0
        for x, total, r in zip(xs, totals, rows, strict=True):
            label = pg.TextItem(f"{100 * r['wait_share']:.0f} %", anchor=(0.5, 1.0),
                                color=self.palette().windowText().color())
            label.setPos(x, total + 0.01 * top)
            self.chart.addItem(label)
        self.chart.setTitle(f"<span style='color: {compute_colour}'>■</span> computing &nbsp; "
                            f"<span style='color: {wait_colour}'>▨</span> waiting for data", size="10pt")
        names = [r["label"].replace(", ", "\n").replace("device-resident", "device-\nresident") for r in rows]
        self.chart.getAxis("bottom").setTicks([list(zip(xs, names, strict=True))])
        self.chart.setXRange(-0.6, len(rows) - 0.4, padding=0)
        self.chart.setYRange(0, top * 1.25, padding=0)


def verdict_html(verdict: str, bottleneck: bool) -> str:
    """The verdict's first clause large and coloured (red: data is the bottleneck), the measured fixes below it."""
    cut = min((i for i in (verdict.find(" ("), verdict.find(" — ")) if i > 0), default=-1)
    head, rest = (verdict, "") if cut < 0 else (verdict[:cut] + ".", verdict[cut:].strip(" .—"))
    if rest.startswith("(") and ")" in rest:  # the measured fixes, then what the cores allowed
        close = rest.index(")")
        after = rest[close + 1:].strip(" .—")
        rest = rest[1:close] + (f". {after[0].upper()}{after[1:]}" if after else "")
    colour = theme.error_colour() if bottleneck else "#2e9e44"
    return (f"<div style='font-size: 15pt; font-weight: bold; color: {colour}'>{html.escape(head)}</div>"
            + (f"<div>{html.escape(rest[0].upper() + rest[1:])}.</div>" if rest else ""))


def _spin(low: int, high: int, value: int, prefix: str, tip: str, suffix: str = "") -> QSpinBox:
    box = QSpinBox()
    box.setRange(low, high)
    box.setValue(value)
    box.setPrefix(prefix)
    box.setSuffix(suffix)
    box.setToolTip(tip)
    return box
