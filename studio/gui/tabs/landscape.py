"""The Landscape tab: pick a run, a checkpoint, the kind (1-D, 2-D, trajectory), the resolution and the
data; compute in a background process (progress, cancel); see a heat map with iso-lines and the
optimizer's path, a 3-D surface and 1-D curves; export PNG and the raw grid (.npz). Also the run's
sharpness (top Hessian eigenvalues, trace, ε-sharpness) and its logged ``sharpness/top_eig`` curve.

Torch-free: the computation is a background job the Session starts (``LandscapeJobRequest``,
``SharpnessJobRequest``: ``core/contracts/landscape.py``), a process forked from the warm back end.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from studio.core.contracts import landscape as contract
from studio.core.contracts import layout
from studio.core.contracts.landscape import (
    LandscapeJobRequest,
    LandscapeRequest,
    SharpnessJobRequest,
    SharpnessRequest,
)
from studio.core.contracts.noise_scale import NoiseScaleRequest, critical_batch_line
from studio.core.landscape import io
from studio.core.vocab import SPLITS, JobKind, LandscapeKind, Metric
from studio.gui.plots.landscape_view import LandscapeView
from studio.gui.widgets.forms import TidySpinBox
from studio.gui.widgets.job_panel import JobPanel, Words
from studio.gui.widgets.run_picker import RunBox, RunPicker, run_names

KINDS = [("2-D (random directions)", LandscapeKind.SURFACE.value), ("1-D (interpolation)", LandscapeKind.LINE.value),
         ("Trajectory (PCA of checkpoints)", LandscapeKind.TRAJECTORY.value)]
LIVE_MS = 2000
FAILED_LINE = "Failed (the message box says why)."  # the message itself: once, in the dialog


def checkpoint_choices(run_dir: Path) -> list[tuple[str, str]]:
    """(label, value) for the run's checkpoints: final first, then every saved step."""
    refs = layout.list_checkpoints(run_dir, with_final=True)
    steps = [r.step for r in refs if not r.is_final]
    out = [("final", "final")] if refs else []
    return out + [(f"step {s}" + (" (initial)" if s == 0 else ""), str(s)) for s in steps]


def samples_text(meta: dict[str, Any]) -> str:
    """The examples a landscape was evaluated on: "360 train samples"; a 1-D one's per split ("360 train and 100
    test samples"; older files say one number for both)."""
    samples = meta.get("samples", "?")
    if isinstance(samples, dict):
        return " and ".join(f"{n:,} {split}" for split, n in samples.items()) + " samples"
    count = f"{samples:,}" if isinstance(samples, int) else str(samples)
    return f"{count} {meta.get('split', 'train and test')} samples"


def trajectory_unready(run_dir: Path) -> str:
    """Why a trajectory cannot be computed for this run yet ("" when it can): it needs two saved points of the
    path besides the final weights (step checkpoints or the run's weight snapshots)."""
    steps = {r.step for r in layout.path_points(run_dir)}
    if len(steps - {max(steps, default=-1)}) >= 2:
        return ""
    return ("Trajectory needs two saved points of the path besides the final weights; this run has "
            f"{max(len(steps) - 1, 0)}. Runs of 2+ epochs keep them (weight snapshots); for this one, train again "
            "with at least 2 epochs or set train.checkpoint_every=1.")


class LandscapeTab(RunPicker, QWidget):
    # it works on a stored run, not on the next run's settings: the window gives its plots the settings panel's
    # width (at 1024 px the contour was 320 px wide beside it; issue 22)
    uses_settings_panel = False
    absent_reason = "no checkpoints saved yet"

    def __init__(self, session: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.panel = JobPanel("Compute", words=Words(  # the landscape or sharpness computation
            idle="Pick a run and press Compute.", starting="Starting the {label} computation…",
            progress="{label}: {text}", failed=FAILED_LINE))
        self.panel.run_clicked.connect(self.compute)
        self.panel.frame.connect(self._frame)
        self.panel.done.connect(self._done)
        self.panel.failed.connect(self._failed)
        self.result: io.Landscape | None = None
        self.result_path: Path | None = None
        self.sharpness: dict[str, Any] | None = None
        self._build()
        self.live_timer = QTimer(self)  # a run in training may save live snapshots and sharpness values
        self.live_timer.setInterval(LIVE_MS)
        self.live_timer.timeout.connect(self._watch_live)
        self.live_timer.start()
        self._seen: set[str] = set()  # saved results already known for the chosen run
        session.run_ended.connect(self._run_ended)
        session.runs_changed.connect(self.refresh_runs)
        self.connect_picker()
        app = QApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.shutdown)  # no landscape process outlives the window
        self.refresh_runs()
        self._follow_selection(session.selected_runs())

    # --- building ----------------------------------------------------------------------------
    def _build(self) -> None:
        self.run_box = RunBox("The run whose landscape to compute (runs with saved checkpoints)")
        self.run_box.setMinimumContentsLength(12)
        self.run_box.currentIndexChanged.connect(self._run_changed)
        self.checkpoint_box = QComboBox()
        self.checkpoint_box.setToolTip("2-D: the centre; 1-D: the end point (α = 1)")
        self.kind_box = QComboBox()
        for label, value in KINDS:
            self.kind_box.addItem(label, value)
        self.kind_box.currentIndexChanged.connect(self._kind_changed)
        self.kind_box.setToolTip("1-D: interpolation between two weight vectors; 2-D: a filter-normalised surface "
                                 "around a checkpoint; trajectory: the path on the PCA plane of the checkpoints")
        self.other_box = RunBox("1-D: interpolate from this run's checkpoint to another run's final weights "
                                "(e.g. small- vs large-batch, Keskar et al. 2017)")
        self.other_box.setMinimumContentsLength(12)
        self.resolution = QSpinBox()
        self.resolution.setRange(contract.RESOLUTION_MIN, contract.RESOLUTION_MAX)
        self.resolution.setValue(contract.DEFAULT_RESOLUTION)
        self.resolution.setToolTip("Points per axis (41 × 41 in Li et al. 2018)")
        self.samples = QSpinBox()
        self.samples.setRange(contract.SAMPLES_MIN, contract.SAMPLES_MAX)
        self.samples.setSingleStep(500)
        self.samples.setValue(contract.DEFAULT_SAMPLES)
        self.samples.setSpecialValueText("all")
        self.samples.setToolTip("Examples evaluated at each point (a seeded subset; 0: the whole split)")
        self.split_box = QComboBox()
        self.split_box.addItems(SPLITS)
        self.split_box.setToolTip("Which split the loss and accuracy are measured on")
        self.span = TidySpinBox()
        self.span.setRange(contract.SPAN_MIN, contract.SPAN_MAX)
        self.span.setValue(contract.DEFAULT_SPAN)
        self.span.setToolTip("2-D: the grid covers [−span, span]² in units of the filter-normalised directions")
        self.bias_bn = QCheckBox("Move biases and BatchNorm too")
        self.bias_bn.setToolTip("Li et al. keep them fixed by default")
        self.compute_button = self.panel.run_button
        self.compute_button.setToolTip("Compute the landscape in a background process")
        self.sharpness_button = QPushButton("Sharpness")
        self.sharpness_button.setToolTip("Top Hessian eigenvalues, Hutchinson trace and Keskar's ε-sharpness "
                                         "at the checkpoint")
        self.sharpness_button.clicked.connect(self.compute_sharpness)
        self.panel.add_button(self.sharpness_button, at=1)  # Compute, Sharpness, Cancel
        self.noise_button = QPushButton("Noise scale")
        self.noise_button.setToolTip("The gradient noise scale B_simple at the checkpoint (McCandlish et al. 2018): "
                                     "the model's critical batch size")
        self.noise_button.clicked.connect(self.compute_noise_scale)
        self.panel.add_button(self.noise_button, at=2)
        self.cancel_button = self.panel.cancel_button
        self.cancel_button.setToolTip("Stop the computation; nothing half-done is saved")
        self.progress, self.status = self.panel.bar, self.panel.status

        form = QFormLayout()
        form.addRow("Run", self.run_box)
        form.addRow("Checkpoint", self.checkpoint_box)
        form.addRow("Kind", self.kind_box)
        form.addRow("Compare with", self.other_box)
        form.addRow("Resolution", self.resolution)
        form.addRow("Samples", self.samples)
        form.addRow("Data", self.split_box)
        form.addRow("Span", self.span)
        form.addRow(self.bias_bn)
        compute_box = QGroupBox("Compute")
        inner = QVBoxLayout(compute_box)
        inner.addLayout(form)
        inner.addWidget(self.panel)

        self.saved_box = QComboBox()
        self.saved_box.setToolTip("Landscapes saved with this run (also the live snapshots taken while training)")
        self.saved_box.activated.connect(self._open_saved)
        self.follow_live = QCheckBox("Show live snapshots as they arrive")
        self.follow_live.setChecked(True)
        self.follow_live.setToolTip("While the run trains with train.landscape_every > 0, open each new snapshot")
        self.log_scale = QCheckBox("Log scale")
        self.log_scale.toggled.connect(self.redraw)
        self.log_scale.setToolTip("Show log₁₀ of the loss: sharp walls and flat floors both stay visible")
        self.png_button = QPushButton("Export PNG…")
        self.png_button.clicked.connect(lambda: self._export_dialog("png"))
        self.png_button.setToolTip("Save the plot as a PNG image")
        self.npz_button = QPushButton("Export .npz…")
        self.npz_button.clicked.connect(lambda: self._export_dialog("npz"))
        self.npz_button.setToolTip("Save the raw grid (coordinates, loss, accuracy, metadata) as .npz")
        view_box = QGroupBox("View")
        view_form = QFormLayout(view_box)
        view_form.addRow("Saved", self.saved_box)
        view_form.addRow(self.follow_live)
        view_form.addRow(self.log_scale)
        self.record_button = QPushButton("Record…")
        self.record_button.setObjectName("record_landscape")
        self.record_button.clicked.connect(self.record_for_slides)
        self.record_button.setToolTip("For slides: the optimizer's path drawn step by step on the contour (MP4 or "
                                      "GIF), or a PNG or SVG still, at the size you choose")
        export = QHBoxLayout()
        export.addWidget(self.png_button)
        export.addWidget(self.npz_button)
        export.addWidget(self.record_button)
        view_form.addRow(export)
        self.info = QLabel("")
        self.info.setWordWrap(True)
        self.info.setObjectName("landscape_info")
        self.sharp_plot = pg.PlotWidget(title=Metric.SHARPNESS.value)
        self.sharp_plot.setLabel("bottom", "step")
        self.sharp_plot.setMinimumHeight(140)
        self.sharp_curve = self.sharp_plot.plot([], [], pen=pg.mkPen("#D55E00", width=2), symbol="o", symbolSize=5)

        controls = QWidget()
        side = QVBoxLayout(controls)
        side.addWidget(compute_box)
        side.addWidget(view_box)
        side.addWidget(self.info)
        side.addWidget(self.sharp_plot)
        side.addStretch(1)
        self.view = LandscapeView()
        splitter = QSplitter()
        splitter.addWidget(controls)
        splitter.addWidget(self.view)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([330, 700])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(splitter)
        self._kind_changed()

    # --- runs --------------------------------------------------------------------------------
    def refresh_runs(self) -> None:
        """Reload the runs that have checkpoints, keeping the current choice."""
        current, other = self.run_box.currentData(), self.other_box.currentData()
        runs = [run for run in self.session.store.list()
                if checkpoint_choices(run.dir) or run.id in self.session.jobs]
        chosen = self.fill_runs(runs)
        names = run_names(self.session)
        self.other_box.set_runs(((r.id, names.get(r.id, r.name), r.status) for r in runs), other)
        self.other_box.insertItem(0, "its initial weights", None)
        self.other_box.setCurrentIndex(max(self.other_box.findData(other), 0) if other else 0)
        if chosen != current:
            self._run_changed()
        else:
            self._refresh_saved()
            self._show_sharpness_curve()

    def _run_changed(self) -> None:
        self.checkpoint_box.clear()
        run_dir = self.run_dir()
        if run_dir is not None:
            for label, value in checkpoint_choices(run_dir):
                self.checkpoint_box.addItem(label, value)
        self._fit_kinds(run_dir)
        self._refresh_saved()
        self._seen = {self.saved_box.itemData(i) for i in range(self.saved_box.count())}
        self._show_sharpness_curve()
        self._forget_other_runs_result(run_dir)

    def _forget_other_runs_result(self, run_dir: Path | None) -> None:
        """A result shown from another run gives way to the chosen run's newest saved landscape, or to an empty
        view: the plot never shows one run while the Run box names another (issue 22)."""
        if self.result_path is None or (run_dir is not None and run_dir in self.result_path.parents):
            return
        newest = self.saved_box.itemData(0) if self.saved_box.count() else None
        if newest:
            self.saved_box.setCurrentIndex(0)
            self.open_result(newest)
            return
        self.result, self.result_path = None, None
        self.view.clear()
        self.info.setText("No landscape of this run yet: press Compute, or choose a run with saved ones.")
        self.panel.show_status("")

    def _fit_kinds(self, run_dir: Path | None) -> None:
        """Grey out Trajectory, with the reason as its tooltip, when the run has too few saved points (said
        before anything is computed)."""
        index = self.kind_box.findData(LandscapeKind.TRAJECTORY.value)
        self.trajectory_reason = trajectory_unready(run_dir) if run_dir is not None else ""
        model = self.kind_box.model()  # a QComboBox's own model is a QStandardItemModel
        item = model.item(index) if isinstance(model, QStandardItemModel) else None
        if item is not None:
            item.setEnabled(not self.trajectory_reason)
        self.kind_box.setItemData(index, self.trajectory_reason or "The optimizer's path on the PCA plane of the "
                                  "saved weights", Qt.ItemDataRole.ToolTipRole)
        if self.trajectory_reason and self.kind_box.currentIndex() == index:
            self.kind_box.setCurrentIndex(self.kind_box.findData(LandscapeKind.SURFACE.value))
            if hasattr(self, "info"):
                self.info.setText(self.trajectory_reason)

    def _refresh_saved(self) -> None:
        self.saved_box.clear()
        run_dir = self.run_dir()
        if run_dir is None:
            return
        for path in reversed(io.list_results(run_dir)):
            self.saved_box.addItem(path.stem, str(path))

    def _watch_live(self, force: bool = False) -> None:
        """While the chosen run trains (and once when it ends): pick up new snapshots and sharpness values."""
        run_id = self.run_box.currentData()
        if not run_id or (run_id not in self.session.jobs and not force):
            return
        fresh = [str(p) for p in io.list_results(self.session.store.get(run_id).dir) if str(p) not in self._seen]
        self._seen.update(fresh)
        self._show_sharpness_curve()
        if not fresh:
            return
        self._refresh_saved()
        if self.follow_live.isChecked() and not self.busy:
            self.saved_box.setCurrentIndex(self.saved_box.findData(fresh[-1]))
            self.open_result(fresh[-1])

    def _run_ended(self, run_id: str, _status: str = "", _message: str = "") -> None:
        if run_id == self.run_box.currentData():
            self._watch_live(force=True)

    def _show_sharpness_curve(self) -> None:
        run_id = self.run_box.currentData()
        steps, values = self.session.store.metrics(run_id).get(Metric.SHARPNESS, ([], [])) if run_id else ([], [])
        self.sharp_curve.setData(steps, values)
        self.sharp_plot.setVisible(bool(steps))

    def _kind_changed(self) -> None:
        kind = self.kind_box.currentData()
        self.other_box.setEnabled(kind == LandscapeKind.LINE)
        self.span.setEnabled(kind == LandscapeKind.SURFACE)
        self.split_box.setEnabled(kind != LandscapeKind.LINE)  # 1-D shows train and test
        self.checkpoint_box.setEnabled(kind != LandscapeKind.TRAJECTORY)

    # --- computing ---------------------------------------------------------------------------
    @property
    def job(self) -> Any:
        """The JobHandle of the computation in progress (or the last one)."""
        return self.panel.handle

    @property
    def busy(self) -> bool:
        return self.panel.busy

    def request(self) -> LandscapeRequest:
        """The landscape request the form describes (``core/contracts/landscape.py``)."""
        kind = self.kind_box.currentData()
        other = self.other_box.currentData() if kind == LandscapeKind.LINE else None
        return LandscapeRequest(
            kind=kind, resolution=self.resolution.value(), samples=self.samples.value(),
            split=self.split_box.currentText(), include_bias_bn=self.bias_bn.isChecked(),
            checkpoint=self.checkpoint_box.currentData() or "final",
            span=self.span.value() if kind == LandscapeKind.SURFACE else contract.DEFAULT_SPAN,
            other_run=str(self.session.store.get(other).dir) if other else None)

    def options(self) -> dict[str, Any]:
        """The landscape request, as ``compute_landscape`` keyword arguments."""
        return self.request().options()

    def sharpness_request(self) -> SharpnessRequest:
        """The sharpness request: the form's checkpoint and split, at most 2,000 of its samples."""
        return SharpnessRequest(checkpoint=self.checkpoint_box.currentData() or "final",
                                samples=min(self.samples.value() or contract.DEFAULT_SHARPNESS_SAMPLES, 2000),
                                split=self.split_box.currentText())

    def compute(self) -> None:
        self._start(self.request())

    def compute_sharpness(self) -> None:
        self._start(self.sharpness_request())

    def compute_noise_scale(self) -> None:
        run_dir = self.run_dir()
        if run_dir is not None:
            self._start(NoiseScaleRequest(str(run_dir), checkpoint=self.checkpoint_box.currentData() or "final"))
        else:
            self._start(self.sharpness_request())  # says which run to pick

    def _start(self, request: LandscapeRequest | SharpnessRequest | NoiseScaleRequest) -> None:
        if self.busy:
            return
        run_dir = self.run_dir()
        if run_dir is None:
            self.session.error.emit("Landscape", "Pick a run with saved checkpoints first (train one).")
            return
        job: Any = (LandscapeJobRequest(str(run_dir), request) if isinstance(request, LandscapeRequest)
                    else request if isinstance(request, NoiseScaleRequest)
                    else SharpnessJobRequest(str(run_dir), request))
        self.panel.start(self.session.start(job))

    def cancel(self) -> None:
        self.panel.cancel()

    def _frame(self, data: dict[str, Any]) -> None:
        """A 2-D or trajectory landscape in the making: the coarse preview, then the grid as its rows are refined."""
        job = self.job
        if job is None or job.finished or data.get("stage") not in contract.FRAME_STAGES:
            return
        split, kind = data.get("split", "train"), data.get("kind", LandscapeKind.SURFACE)
        meta = {"explained_variance": data["explained_variance"]} if "explained_variance" in data else {}
        partial = io.Landscape(kind, data["xs"], data["ys"], {f"{split}/loss": data["loss"],
                                                              f"{split}/acc": data["acc"]}, data.get("path"), meta)
        self.view.show_result(partial, self.log_scale.isChecked())
        n = len(data["xs"])
        if data["stage"] == "preview":
            on = f" on {data['samples']} samples" if data.get("samples") else ""
            # explicit line breaks: a word-wrapped label got too little height in this column and was clipped
            self.info.setText(f"Preview: {n}×{len(data['ys'])} points{on};\nrefining the full grid (Cancel keeps "
                              "nothing)…")
        else:
            self.info.setText(f"Refining: {data['rows_done']} of {data['rows']} rows computed;\nthe rest is the "
                              f"preview, interpolated")

    def _done(self, result: dict[str, Any] | None) -> None:
        if result is None:
            self.panel.show_status(FAILED_LINE, error=True)
            self._failed("")
            return
        if self.job.kind == JobKind.LANDSCAPE:
            self.open_result(result["path"])
            self._refresh_saved()
        elif "b_simple" in result:
            line = critical_batch_line(result)  # type: ignore[arg-type]  # the task's NoiseScaleResult
            self.info.setText(line[:1].upper() + line[1:])
            self.panel.show_status(f"Noise scale done in {result['seconds']:.1f} s")
        else:
            self.show_sharpness(result["summary"])

    def _failed(self, message: str) -> None:
        self.session.error.emit("Landscape", message or f"the {self.job.kind} computation failed")

    def shutdown(self) -> None:
        self.panel.cancel()
        self.live_timer.stop()

    # --- showing -----------------------------------------------------------------------------
    def open_result(self, path: str | Path) -> None:
        try:
            self.result = io.load(path)
        except Exception as err:  # noqa: BLE001 - a bad file is a message, not a crash
            self.session.error.emit("Landscape", str(err))
            return
        self.result_path = Path(path)
        self.redraw()
        summary = self.result.summary()
        meta = self.result.meta
        data = samples_text(meta)
        lines = [f"{self.result.kind} · {meta.get('checkpoint', '')} · {data} · {summary['resolution']} per axis",
                 f"centre loss {summary['center_loss']:.4g}, min {summary['min_loss']:.4g}, "
                 f"max {summary['max_loss']:.4g}"]
        if self.result.kind == LandscapeKind.LINE:
            lines.append(f"α = 0: {meta.get('start', '?')}; α = 1: {meta.get('end', '?')}")
        if meta.get("explained_variance"):
            ev = meta["explained_variance"]
            lines.append(f"explained variance: PC1 {100 * ev[0]:.1f}%, PC2 {100 * ev[1]:.1f}%")
        lines.append(meta.get("batch_norm", ""))
        if "seconds" in meta:
            lines.append(f"{meta.get('evaluator', '')} on {meta.get('device', '')}: {meta['seconds']:.1f} s")
        self.info.setText("\n".join(line for line in lines if line))
        self.panel.show_status(f"Showing {self.result_path.name}")

    def _open_saved(self, index: int) -> None:
        path = self.saved_box.itemData(index)
        if path:
            self.open_result(path)

    def redraw(self) -> None:
        if self.result is not None:
            self.view.show_result(self.result, self.log_scale.isChecked())

    def show_sharpness(self, summary: dict[str, Any]) -> None:
        self.sharpness = summary
        eigs = ", ".join(f"{v:.4g}" for v in summary["top_eigenvalues"])
        self.info.setText(f"Sharpness at {summary['checkpoint']} ({summary['samples']} {summary['split']} samples):\n"
                          f"top Hessian eigenvalues {eigs}\ntrace ≈ {summary['trace']:.4g} "
                          f"± {summary['trace_stderr']:.2g} (Hutchinson)\nε-sharpness {summary['eps_sharpness']:.4g}% "
                          f"(ε = {summary['eps']:g}, Keskar et al.)\n{summary['batch_norm']}")
        self.panel.show_status(f"Sharpness done in {summary['seconds']:.1f} s")

    # --- export ------------------------------------------------------------------------------
    def export_png(self, path: str | Path) -> Path:
        """The current view as a PNG image."""
        path = Path(path)
        if not self.view.currentWidget().grab().save(str(path), "PNG"):
            raise OSError(f"could not write {path}")
        return path

    def trajectory_reel(self, _presentation: bool = True) -> Any:
        """The shown 2-D or trajectory landscape as a reel (``gui/plots/trajectory_reel.py``)."""
        from studio.gui.plots.trajectory_reel import LINE_REFUSAL, RECORDABLE, TrajectoryReel
        from studio.gui.widgets.movie_file import MovieError

        if self.result is None:
            raise MovieError("compute or open a landscape first")
        if self.result.kind not in RECORDABLE:
            raise MovieError(f"{LINE_REFUSAL}: use Export PNG…")
        return TrajectoryReel(self.result, self.log_scale.isChecked())

    def record_for_slides(self) -> None:
        """Record…: the landscape's path step by step (or a still), for slides."""
        from studio.gui.widgets.record_dialog import ask_and_record

        stem = self.result_path.stem if self.result_path else "landscape"
        done = ask_and_record("the landscape", self.trajectory_reel, stem, self)
        if done is not None:
            self.panel.show_status(*done)

    def export_npz(self, path: str | Path) -> Path:
        """The raw grid, coordinates and metadata (the saved .npz)."""
        if self.result_path is None:
            raise FileNotFoundError("no landscape is shown")
        return Path(shutil.copyfile(self.result_path, path))

    def _export_dialog(self, kind: str) -> None:
        if self.result is None:
            self.session.status_text.emit("Compute or open a landscape first")
            return
        stem = self.result_path.stem if self.result_path else "landscape"
        filters = {"png": "PNG image (*.png)", "npz": "NumPy archive (*.npz)"}
        path, _ = QFileDialog.getSaveFileName(self, "Export", f"{stem}.{kind}", filters[kind])
        if not path:
            return
        try:
            (self.export_png if kind == "png" else self.export_npz)(path)
            self.session.status_text.emit(f"Saved {path}")
        except OSError as err:
            self.session.error.emit("Export", str(err))
