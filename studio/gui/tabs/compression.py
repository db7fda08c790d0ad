"""The Compression tab: prune and/or quantise the run chosen in its Run box (which follows the run list's
selection, as every analysis view's does: ``gui/widgets/run_picker.py``) and see before and after side by side
(test accuracy, size on disk, parameters and sparsity, CPU latency); the run's earlier compressions; and a sweep
of test accuracy against sparsity 0–95 % in one background job. The work is ``studio compress``
``engine/tasks/compression.py`` in a background job the Session follows (``gui/widgets/job_panel.JobPanel``);
the saved entries are read from the run directory.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from studio.core.contracts import layout
from studio.core.contracts.compression import (
    QUANTIZE,
    CompressRequest,
    CompressResult,
    SweepRequest,
    SweepResult,
    list_compressed,
    load_sweep,
)
from studio.core.vocab import JobState
from studio.gui.plots.empty_hint import EmptyHint
from studio.gui.plots.palette import run_colour
from studio.gui.widgets.forms import TidySpinBox
from studio.gui.widgets.job_panel import JobPanel, Words
from studio.gui.widgets.run_picker import RunBox, RunPicker, run_names

HINT = "Pick a finished classification run in the Run box (or select one in the run list) to compress it."
ROWS = (("test accuracy", "test_acc", "{:.4f}"), ("size on disk", "bytes", "kib"),
        ("size gzipped", "gzip_bytes", "kib"),
        ("parameters", "params", "{:,}"), ("non-zero parameters", "nonzero_params", "{:,}"),
        ("weight sparsity", "sparsity", "{:.1%}"), ("latency, 1 example", "latency_ms", "{:.3f} ms"),
        ("latency, batch 256", "batch256_ms", "{:.2f} ms"))
HISTORY = ("entry", "test acc", "Δ points", "size", "÷ size", "sparsity", "latency")


def _fmt(fmt: str, value: Any) -> str:
    if value is None:
        return "—"
    return f"{value / 1024:,.0f} KiB" if fmt == "kib" else fmt.format(value)


def _change(key: str, before: Any, after: Any) -> str:
    if key == "test_acc":
        return f"{(after - before) * 100:+.2f} points"
    if key in ("bytes", "gzip_bytes", "latency_ms", "batch256_ms") and after:
        return f"÷ {before / after:.2f}"
    if key == "sparsity":
        return ""
    return f"{after - before:+,}" if isinstance(before, int) else ""


def _table(name: str, headers: tuple[str, ...]) -> QTableWidget:
    t = QTableWidget(0, len(headers))
    t.setObjectName(name)
    t.setHorizontalHeaderLabels(list(headers))
    t.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    t.verticalHeader().setVisible(False)
    t.verticalHeader().setDefaultSectionSize(t.fontMetrics().height() + 8)
    t.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    t.horizontalHeader().setStretchLastSection(True)
    return t


class CompressionTab(RunPicker, QWidget):
    # it works on a finished run, not on the next run's settings: beside the settings panel its before/after
    # table was clipped at 1024 px (issue 22), so the window gives it the width
    uses_settings_panel = False
    absent_reason = "not finished, or no checkpoint saved"

    def __init__(self, session: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.run_id: str | None = None
        self.folder: Path | None = None
        self.last: dict[str, Any] | None = None
        self.sweep: SweepResult | None = None
        self.panel = JobPanel("Compress", words=Words(starting="Starting…"))  # the compression or the sweep
        self.panel.run_clicked.connect(self.compress)
        self.panel.done.connect(self._on_done)

        self.run_box = RunBox("The run to compress (finished or stopped runs with saved checkpoints)")
        self.run_box.setObjectName("compress_run")
        self.run_box.currentIndexChanged.connect(lambda _i: self._show_run(self.run_box.currentData()))
        self.title = QLabel(HINT)
        self.title.setObjectName("compress_title")
        self.title.setWordWrap(True)
        self.prune = TidySpinBox()
        self.prune.setObjectName("compress_prune")
        self.prune.setRange(0.0, 0.99)
        self.prune.setSingleStep(0.05)
        self.prune.setValue(0.5)
        self.prune.setToolTip("Fraction of the weights set to zero: the smallest by magnitude across the whole "
                              "network (torch.nn.utils.prune.global_unstructured)")
        self.structured = QCheckBox("whole neurons / channels")
        self.structured.setToolTip("Structured pruning: remove each layer's output neurons or channels with the "
                                   "smallest L2 norm (the output layer is kept)")
        self.fine_tune = QSpinBox()
        self.fine_tune.setRange(0, 5000)
        self.fine_tune.setSingleStep(50)
        self.fine_tune.setSuffix(" steps")
        self.fine_tune.setToolTip("Train a little after pruning (Adam at a tenth of the run's learning rate); "
                                  "pruned weights stay zero")
        self.quantize = QComboBox()
        self.quantize.setObjectName("compress_quantize")
        self.quantize.addItems(QUANTIZE)
        self.quantize.setCurrentText("int8")
        self.quantize.setToolTip("Post-training int8 quantisation (torch.ao.quantization): int8 = static with "
                                 "calibration for conv models, dynamic (Linear/LSTM weights) otherwise")
        self.run_button = self.panel.run_button
        self.run_button.setObjectName("compress_button")
        self.run_button.setToolTip("Prune and/or quantise the selected run; the result is saved as a new entry")
        self.sweep_button = QPushButton("Sweep sparsity 0–95 %")
        self.sweep_button.setObjectName("sweep_button")
        self.sweep_button.setToolTip("Test accuracy after pruning to 0, 10, … 95 % (each from the trained weights)")
        self.sweep_button.clicked.connect(self.run_sweep)
        self.panel.add_button(self.sweep_button, at=1)  # Compress, Sweep, Cancel
        self.cancel_button = self.panel.cancel_button
        self.cancel_button.setToolTip("Stop the compression or the sweep")
        self.bar, self.status = self.panel.bar, self.panel.status
        self.status.setObjectName("compress_status")

        form = QFormLayout()
        form.addRow("Prune", self.prune)
        form.addRow("", self.structured)
        form.addRow("Fine-tune", self.fine_tune)
        form.addRow("Quantise", self.quantize)
        controls = QWidget()
        cl = QVBoxLayout(controls)
        run_row = QHBoxLayout()
        run_row.addWidget(QLabel("Run"))
        run_row.addWidget(self.run_box, 1)
        cl.addLayout(run_row)
        cl.addWidget(self.title)
        cl.addLayout(form)
        cl.addWidget(self.panel)
        cl.addStretch(1)

        self.table = _table("compress_table", ("", "before", "after", "change"))
        self.table.setToolTip("The original model and the compressed one side by side (latency: CPU, one thread)")
        self.after_what = QLabel("")  # what "after" is (pruned 50 %, int8 …): a caption, not a long column title
        self.after_what.setObjectName("compress_after_what")
        self.after_what.setWordWrap(True)
        table_box = QWidget()
        tl = QVBoxLayout(table_box)
        tl.setContentsMargins(0, 0, 0, 0)
        tl.addWidget(self.after_what)
        tl.addWidget(self.table, 1)
        self.history = _table("compress_history", HISTORY)
        self.history.setToolTip("This run's saved compressions (RUN_DIR/compressed); click one to show it")
        self.history.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.history.itemSelectionChanged.connect(self._show_history_row)
        self.entries: list[CompressResult] = []

        self.plot = pg.PlotWidget()
        self.plot.setObjectName("sweep_plot")
        self.plot.setTitle("Test accuracy against sparsity")
        self.plot.setLabel("bottom", "weights pruned (%)")
        self.plot.setLabel("left", "test accuracy (%)")
        self.plot.showGrid(x=True, y=True, alpha=0.3)
        self.plot.addLegend(offset=(10, -10))  # bottom left: the curve starts high and falls at the right
        self.empty = EmptyHint(self.plot, "Sweep sparsity 0–95 % on a selected run: its test accuracy against "
                                          "the share of weights pruned")

        top = QSplitter(Qt.Orientation.Horizontal)
        top.addWidget(controls)
        top.addWidget(table_box)
        top.setStretchFactor(1, 1)
        bottom = QSplitter(Qt.Orientation.Horizontal)
        bottom.addWidget(self.history)
        bottom.addWidget(self.plot)
        bottom.setSizes([460, 640])
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(top)
        split.addWidget(bottom)
        layout = QVBoxLayout(self)
        layout.addWidget(split)
        self.run_id = ""  # nothing shown yet: the first choice (even none) is drawn
        session.runs_changed.connect(self.refresh_runs)
        session.run_ended.connect(lambda *_: self.refresh_runs())
        self.connect_picker()
        self.refresh_runs()
        self._follow_selection(session.selected_runs())

    @property
    def busy(self) -> bool:
        return self.panel.busy

    # --- the run ---------------------------------------------------------------------------
    def refresh_runs(self) -> None:
        """The runs that can be compressed (finished or stopped, with a checkpoint), keeping the choice."""
        self.fill_runs([run for run in self.session.store.list()
                        if run.status in (JobState.FINISHED, JobState.STOPPED)
                        and layout.list_checkpoints(run.dir, with_final=True)])
        self._show_run(self.run_box.currentData())

    def _show_run(self, run_id: str | None) -> None:
        """Show the chosen run (its saved compressions and sweep); nothing of another run stays."""
        if run_id == self.run_id:
            return
        self.run_id, self.folder, self.last = run_id, None, None
        if run_id:
            try:
                info = self.session.store.get(run_id)
                self.folder = info.dir
                name = run_names(self.session).get(run_id, info.name)
                self.title.setText(f"<b>{name}</b> ({info.status}, model {info.run_config.model.name})")
            except Exception as err:  # noqa: BLE001 - a run deleted meanwhile: say so
                self.title.setText(str(err))
        else:
            self.title.setText(HINT)
        self._refresh()

    def _refresh(self) -> None:
        self.entries = list_compressed(self.folder) if self.folder else []
        self.sweep = load_sweep(self.folder) if self.folder else None
        self._fill_history()
        self.show_entry(self.last or (self.entries[-1] if self.entries else None))
        self._draw_sweep()
        self._enable()

    def _enable(self) -> None:
        self.panel.set_runnable(self.folder is not None)  # Compress and Sweep need a run

    # --- actions ---------------------------------------------------------------------------
    def compress(self) -> None:
        if not self.run_id:
            return
        self._start(CompressRequest(str(self.folder), round(self.prune.value(), 4),
                                                self.structured.isChecked(), self.quantize.currentText(),
                                                self.fine_tune.value()))

    def run_sweep(self) -> None:
        if not self.run_id:
            return
        self._start(SweepRequest(str(self.folder), structured=self.structured.isChecked(),
                                          fine_tune_steps=self.fine_tune.value()))

    def _start(self, request: CompressRequest | SweepRequest) -> None:
        if self.panel.busy:
            return
        self.panel.start(self.session.start(request))

    def _on_done(self, result: dict[str, Any]) -> None:
        if isinstance(self.panel.handle.request, SweepRequest):
            self.panel.show_status(f"Sweep done in {result['seconds']:.1f} s")
            self.last = None
        else:
            self.last = result
            self.panel.show_status(f"Saved as {result['id']} ({result['seconds']:.1f} s)")
        self._refresh()

    # --- views -----------------------------------------------------------------------------
    def show_entry(self, entry: Mapping[str, Any] | None) -> None:
        self.table.setRowCount(0)
        self.after_what.setText("")
        if not entry:
            return
        b, a = entry["before"], entry["after"]
        what = [f"pruned {entry['prune']:.0%}" + (" (structured)" if entry.get("structured") else "")] \
            if entry["prune"] else []
        if entry.get("fine_tune_steps"):
            what.append(f"fine-tuned {entry['fine_tune_steps']} steps")
        if entry.get("method"):
            what.append(f"int8 {entry['method']}")
        self.after_what.setText("after: " + (", ".join(what) or "unchanged"))
        self.table.setHorizontalHeaderLabels(["", "before", "after", "change"])
        self.table.setRowCount(len(ROWS))
        for i, (label, key, fmt) in enumerate(ROWS):
            cells = (label, _fmt(fmt, b.get(key)), _fmt(fmt, a.get(key)), _change(key, b.get(key), a.get(key)))
            for j, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if j:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(i, j, item)

    def _fill_history(self) -> None:
        self.history.blockSignals(True)
        self.history.setRowCount(len(self.entries))
        for i, e in enumerate(self.entries):
            a = e["after"]
            cells = (e["id"], f"{a['test_acc']:.4f}", f"{e['accuracy_change'] * 100:+.2f}", _fmt("kib", a["bytes"]),
                     f"{e['size_ratio']:.2f}", f"{a['sparsity']:.0%}", f"{a['latency_ms']:.3f} ms")
            for j, text in enumerate(cells):
                self.history.setItem(i, j, QTableWidgetItem(text))
        self.history.blockSignals(False)

    def _show_history_row(self) -> None:
        rows = self.history.selectionModel().selectedRows()
        if rows and rows[0].row() < len(self.entries):
            self.show_entry(self.entries[rows[0].row()])

    def _draw_sweep(self) -> None:
        self.plot.clear()
        s = self.sweep
        if not s or not s.get("points"):
            self.empty.show_hint()
            return
        self.empty.hide_hint()
        xs = [p["sparsity"] * 100 for p in s["points"]]
        ys = [p["test_acc"] * 100 for p in s["points"]]
        name = "structured" if s.get("structured") else "global magnitude"
        if s.get("fine_tune_steps"):
            name += f", {s['fine_tune_steps']} fine-tuning steps"
        self.plot.plot(xs, ys, pen=pg.mkPen(run_colour(0), width=2), symbol="o", symbolSize=7,
                       symbolBrush=run_colour(0), name=name)
        base = ys[0] if xs[0] == 0 else None
        if base is not None:
            self.plot.plot([0, 100], [base - 1, base - 1], pen=pg.mkPen(run_colour(1), width=1,
                                                                              style=Qt.PenStyle.DashLine),
                           name="1 point below the unpruned model")
        self.plot.setXRange(0, 100, padding=0.02)
