"""The Evaluation tab: what a finished run gets wrong, predictions on new inputs, and exports.

Pick a run, a checkpoint and a split, press Evaluate: a background job (``engine/tasks/evaluation.py`` through the
session) computes the confusion matrix (counts or normalised), per-class precision/recall/F1, the reliability
diagram with its ECE and the most confident mistakes, saves them under the run's ``evaluations/`` and shows
them; a saved evaluation opens at once. Predict classifies dropped images, folders, CSV files or a pasted
CSV row; Export writes the curves (CSV, PNG), TensorBoard event files or the model (torch.export or
TorchScript). Torch-free: every computation that needs torch runs in a job.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QFileDialog,
    QGridLayout,
    QGroupBox,
    QLabel,
    QPushButton,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from studio.core.contracts import layout
from studio.core.contracts.activations import ActivationsRequest
from studio.core.contracts.evaluation import EvaluationRequest, EvaluationResult, PredictRequest
from studio.core.contracts.export import ModelExportRequest, TensorBoardExportRequest
from studio.core.maths.evaluation import load_saved
from studio.core.vocab import JobState, Split
from studio.gui.plots.evaluation_views import (
    ConfusionView,
    MistakeGallery,
    ReliabilityView,
    fill_per_class,
    per_class_table,
)
from studio.gui.tabs.landscape import checkpoint_choices
from studio.gui.widgets.job_panel import JobPanel, Words
from studio.gui.widgets.predict_panel import PredictPanel
from studio.gui.widgets.run_picker import RunBox, RunPicker, run_names

SPLITS = (("test", Split.TEST.value), ("validation", Split.VAL.value), ("train", Split.TRAIN.value))  # (label, split)
FAILED_LINE = "Failed (the message box says why)."  # the message itself: once, in the dialog
WORDS = Words(idle="Pick a run and press Evaluate.", starting="Starting the {label}…", progress="{label}: {text}",
              failed=FAILED_LINE)
OWN_LINE = Words(starting=None, progress=None, cancelled=None, failed=None)  # a job with its own line writes it


def takes_28x28_grey(run_dir: Path | None) -> bool:
    """Whether the run in ``run_dir`` was trained on 28×28 grey images (the Predict page's digit pad fits it)."""
    if run_dir is None:
        return False
    from studio.core.config import RunConfig
    from studio.core.config.data_fit import image_shape
    from studio.core.errors import StudioError

    try:
        config = RunConfig.load(layout.config_path(run_dir))
    except (StudioError, OSError):
        return False
    return image_shape(config.data.name) == (1, 28, 28)


def checkpoint_label(value: str) -> str:
    return "final" if value in ("", "final") else f"step {value}"


class EvaluationTab(RunPicker, QWidget):
    # it works on stored runs, not on the next run's settings: the window gives it the settings panel's width
    # (at 1024 px its plots were cramped beside the panel; issue 22)
    uses_settings_panel = False
    absent_reason = "not finished, or no checkpoint saved"

    def __init__(self, session: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        # the evaluation, prediction or export in progress: Evaluate, Cancel, the bar and the header's status line
        self.panel = JobPanel("Evaluate", arrange="compact", words=WORDS)
        self.panel.run_clicked.connect(self.evaluate)
        self.panel.progress.connect(self._progress)
        self.panel.done.connect(self._done)
        self.panel.failed.connect(self._failed)
        self.panel.cancelled.connect(self._cancelled)
        self.panel.busy_changed.connect(self._set_busy)
        self._on_result: Callable[[Any], None] = lambda _result: None
        self._line: QLabel | None = None  # where the job in progress reports (the header, or Predict's own line)
        self.summary: EvaluationResult | None = None
        self._build()
        session.runs_changed.connect(self.refresh_runs)
        session.run_ended.connect(lambda *_: self.refresh_runs())
        self.connect_picker()
        app = QApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.shutdown)
        self.refresh_runs()
        self._follow_selection(session.selected_runs())

    # --- building ----------------------------------------------------------------------------
    def _build(self) -> None:
        self.run_box = RunBox("The run to evaluate (finished or stopped runs with saved checkpoints)")
        self.run_box.setMinimumContentsLength(12)
        self.run_box.currentIndexChanged.connect(self._run_changed)
        self.checkpoint_box = QComboBox()
        self.checkpoint_box.setToolTip("The weights to evaluate: the final ones or a saved step")
        self.checkpoint_box.currentIndexChanged.connect(self.open_saved)
        self.split_box = QComboBox()
        for label, value in SPLITS:
            self.split_box.addItem(label, value)
        self.split_box.setToolTip("The data to evaluate on (the split the run held out, or its training data)")
        self.split_box.currentIndexChanged.connect(self.open_saved)
        self.evaluate_button = self.panel.run_button
        self.evaluate_button.setToolTip("Compute the evaluation in a background process")
        self.cancel_button = self.panel.cancel_button
        self.cancel_button.setToolTip("Stop the computation; nothing half-done is saved")
        self.progress, self.status = self.panel.bar, self.panel.status
        at = 0  # the run, checkpoint and data pickers before Evaluate and Cancel, on one row
        for label, widget in (("Run", self.run_box), ("Checkpoint", self.checkpoint_box), ("Data", self.split_box)):
            self.panel.buttons.insertWidget(at, QLabel(label))
            self.panel.buttons.insertWidget(at + 1, widget, 2 if widget is self.run_box else 0)
            at += 2

        self.confusion = ConfusionView()
        self.per_class = per_class_table()
        left = QSplitter(Qt.Orientation.Vertical)
        left.addWidget(self.confusion)
        left.addWidget(self.per_class)
        left.setSizes([420, 200])
        self.gallery = MistakeGallery()
        self.reliability = ReliabilityView()
        self.predict_panel = PredictPanel()
        self.predict_panel.requested.connect(self.predict)
        self.predict_panel.activations_requested.connect(self.show_activations)
        self.pages = QTabWidget()
        self.pages.addTab(self.gallery, "Confident mistakes")
        self.pages.addTab(self.reliability, "Calibration")
        self.pages.addTab(self.predict_panel, "Predict")
        self.pages.addTab(self._export_page(), "Export")
        splitter = QSplitter()
        splitter.addWidget(left)
        splitter.addWidget(self.pages)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([520, 520])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.panel)
        layout.addWidget(splitter, 1)

    def _export_page(self) -> QWidget:
        page = QWidget()
        curves = QGroupBox("Curves of the run")
        grid = QGridLayout(curves)
        self.csv_button = QPushButton("CSV…")
        self.csv_button.setToolTip("Every logged metric: run_id, run_name, metric, step, value")
        self.csv_button.clicked.connect(lambda: self._export_dialog("csv"))
        self.png_button = QPushButton("PNG…")
        self.png_button.setToolTip("The loss, accuracy, learning-rate and throughput plots as one image")
        self.png_button.clicked.connect(lambda: self._export_dialog("png"))
        self.tb_button = QPushButton("TensorBoard…")
        self.tb_button.setToolTip("Event files for `tensorboard --logdir DIR` (every metric, with step and wall "
                                  "time, and the config)")
        self.tb_button.clicked.connect(lambda: self._export_dialog("tensorboard"))
        for i, b in enumerate((self.csv_button, self.png_button, self.tb_button)):
            grid.addWidget(b, 0, i)
        model = QGroupBox("Trained model (the chosen checkpoint)")
        mgrid = QGridLayout(model)
        self.export_button = QPushButton("torch.export (.pt2)…")
        self.export_button.setToolTip("Load without Studio: torch.export.load(PATH).module(); takes pixel values "
                                      "0–255 and returns class probabilities; a .json beside it names the classes")
        self.export_button.clicked.connect(lambda: self._export_dialog("export"))
        self.script_button = QPushButton("TorchScript (.pt)…")
        self.script_button.setToolTip("Load without Studio: torch.jit.load(PATH)")
        self.script_button.clicked.connect(lambda: self._export_dialog("torchscript"))
        mgrid.addWidget(self.export_button, 0, 0)
        mgrid.addWidget(self.script_button, 0, 1)
        self.export_status = QLabel("The model file holds the preprocessing: it takes pixel values 0–255 and returns "
                                    "class probabilities, in plain PyTorch without Studio.")
        self.export_status.setWordWrap(True)
        layout = QVBoxLayout(page)
        layout.addWidget(curves)
        layout.addWidget(model)
        layout.addWidget(self.export_status)
        layout.addStretch(1)
        return page

    # --- runs --------------------------------------------------------------------------------
    def refresh_runs(self) -> None:
        current = self.run_box.currentData()
        chosen = self.fill_runs([run for run in self.session.store.list() if run.status in (JobState.FINISHED,
                                 JobState.STOPPED) and checkpoint_choices(run.dir)])
        if chosen != current or self.checkpoint_box.count() == 0:
            self._run_changed()

    def _run_changed(self) -> None:
        self.checkpoint_box.blockSignals(True)
        self.checkpoint_box.clear()
        run_dir = self.run_dir()
        if run_dir is not None:
            for label, value in checkpoint_choices(run_dir):
                self.checkpoint_box.addItem(label, value)
        self.checkpoint_box.blockSignals(False)
        self.predict_panel.set_drawing(takes_28x28_grey(run_dir))
        self.open_saved()

    def saved_path(self) -> Path | None:
        run_dir = self.run_dir()
        if run_dir is None or self.checkpoint_box.currentData() is None:
            return None
        return layout.evaluation_path(run_dir, self.split_box.currentData(),
                                      checkpoint_label(self.checkpoint_box.currentData()))

    def open_saved(self) -> None:
        """Show the saved evaluation of the chosen run, checkpoint and split, if there is one."""
        path = self.saved_path()
        if path is not None and path.exists():
            self.show_result(path)
        else:
            self.clear()
            self.panel.show_status("Not evaluated yet: press Evaluate." if path else
                                   "Pick a finished run in the Run box." if self.run_box.count() else
                                   "No finished run with checkpoints yet: train one first.")

    # --- showing -----------------------------------------------------------------------------
    def clear(self) -> None:
        self.summary = None
        self.confusion.counts = None
        self.confusion.redraw()
        self.confusion.image.clear()
        self.confusion.empty.show_hint()
        self.per_class.setRowCount(0)
        self.gallery.clear()

    def show_result(self, json_path: str | Path) -> None:
        summary, arrays = load_saved(json_path)
        self.summary = summary
        self.confusion.show_matrix(summary["confusion"], summary["classes"])
        fill_per_class(self.per_class, summary["per_class"])
        self.reliability.show_reliability(summary["reliability"])
        self.gallery.show_mistakes(summary["mistakes"], arrays.get("mistake_images"))
        self.panel.show_status(self.summary_text())

    def summary_text(self) -> str:
        s = self.summary
        if s is None:
            return ""
        name = run_names(self.session).get(s["run_id"], s["run_id"])
        return (f"Accuracy {s['accuracy']:.4f} on {s['examples']:,} {s['split']} examples · ECE {s['ece']:.4f} · "
                f"{len(s['mistakes'])} most confident mistakes · {name} ({s['checkpoint']}), computed in "
                f"{s['seconds']:.1f} s")

    # --- jobs --------------------------------------------------------------------------------
    @property
    def job(self) -> Any:
        """The JobHandle of the evaluation, prediction or export in progress (or the last one)."""
        return self.panel.handle

    @property
    def busy(self) -> bool:
        return self.panel.busy

    def _start(self, request: Any, on_result: Callable[[Any], None], line: QLabel | None = None) -> bool:
        """Start ``request`` through the Session unless a job is in progress; ``on_result`` gets its result.
        The job reports on ``line`` (the header by default; a prediction on the Predict page's own line, so the
        header stays about the evaluation)."""
        if self.busy:
            self.panel.show_status("Wait for the computation in progress (or cancel it).")
            return False
        self._on_result = on_result
        self._line = line
        self.panel.words = WORDS if line is None else OWN_LINE  # a prediction reports on its own line
        self.panel.start(self.session.start(request))
        if line is not None:
            line.setText(f"Starting the {self.panel.label}…")
        return True

    def evaluate(self) -> bool:
        run_dir = self.run_dir()
        if run_dir is None:
            self.session.error.emit("Evaluation", "Pick a finished run with saved checkpoints first (train one).")
            return False
        request = EvaluationRequest(str(run_dir), self.split_box.currentData(), self.checkpoint_box.currentData())
        return self._start(request, lambda result: self.show_result(result["path"]))

    def predict(self, paths: list[str], top_k: int = 3) -> bool:
        run_dir = self.run_dir()
        if run_dir is None:
            self.session.error.emit("Predict", "Pick a finished run with saved checkpoints first (train one).")
            return False
        request = PredictRequest(str(run_dir), tuple(paths), top_k, self.checkpoint_box.currentData())
        self.predict_panel.status.setText("Classifying…")
        return self._start(request, self.predict_panel.show_predictions, line=self.predict_panel.status)

    def show_activations(self, path: str) -> bool:
        """Every layer's output for the image at ``path`` under the chosen run (Predict's layer activations)."""
        run_dir = self.run_dir()
        if run_dir is None:
            self.session.error.emit("Layer activations", "Pick a finished run with saved checkpoints first.")
            return False
        request = ActivationsRequest(str(run_dir), path, self.checkpoint_box.currentData())
        return self._start(request, self.predict_panel.show_activations)

    def predict_on(self, run_id: str, paths: list[str]) -> bool:
        """Classify ``paths`` with run ``run_id`` (files dropped on its row in the run list): the run becomes the
        chosen one and the Predict page shows the result."""
        self.refresh_runs()
        if self.busy or not self.select_run(run_id):
            why = ("wait for the evaluation in progress to end" if self.busy else
                   "only a finished or stopped run with a saved checkpoint can classify")
            self.session.error.emit("Predict", f"Cannot classify with run {run_id} now: {why}.")
            return False
        self.pages.setCurrentWidget(self.predict_panel)
        self.predict_panel.predict_paths(paths)
        return True

    def export(self, what: str, path: str | Path) -> bool:
        """Write ``what`` (csv, png, tensorboard, export, torchscript) of the chosen run to ``path``."""
        run_id = self.run_box.currentData()
        if not run_id:
            self.session.error.emit("Export", "Pick a run first.")
            return False
        path = Path(path)
        if what == "csv":
            from studio.core.runs.export import export_metrics_csv

            rows = export_metrics_csv(self.session.store, [run_id], path)
            self.export_status.setText(f"Wrote {rows:,} metric rows to {path}.")
            return True
        if what == "png":
            from studio.gui.plots.curves_png import render_curves_png

            size = render_curves_png(self.session.store, [run_id], path)
            self.export_status.setText(f"Wrote the curves to {path} ({size / 1024:.0f} KiB).")
            return True
        request: TensorBoardExportRequest | ModelExportRequest
        if what == "tensorboard":
            request = TensorBoardExportRequest(str(self.session.store.home), run_id, str(path))
        else:
            request = ModelExportRequest(str(self.run_dir()), str(path), what, self.checkpoint_box.currentData())
        return self._start(request, self._export_done)

    def _export_done(self, result: dict[str, Any]) -> None:
        if "bytes" in result:
            self.export_status.setText(f"Wrote {result['path']} ({result['bytes'] / 1e6:.1f} MB) and "
                                       f"{Path(result['config_path']).name}.")
        else:
            self.export_status.setText(f"Wrote {result['scalars']:,} values and {result.get('histograms', 0):,} "
                                       f"histograms to {result['path']}: "
                                       f"tensorboard --logdir {Path(result['path']).parent}")

    def _export_dialog(self, what: str) -> None:
        run_id = self.run_box.currentData() or "run"
        if what == "tensorboard":
            path = QFileDialog.getExistingDirectory(self, "TensorBoard log folder")
        else:
            suffix = {"csv": ".csv", "png": ".png", "export": ".pt2", "torchscript": ".pt"}[what]
            path, _ = QFileDialog.getSaveFileName(self, "Export", f"{run_id}{suffix}", f"*{suffix}")
        if path:
            try:
                self.export(what, path)
            except Exception as err:  # noqa: BLE001 - a failed write becomes a message, not a crash
                self.session.error.emit("Export", str(err))

    def cancel(self) -> None:
        self.panel.cancel()

    def _set_busy(self, busy: bool) -> None:
        """What else a job in progress turns off: the exports, the drop and the activations (Evaluate and Cancel
        follow the job panel)."""
        for b in (self.export_button, self.script_button, self.tb_button):
            b.setEnabled(not busy)
        self.predict_panel.drop.setEnabled(not busy)
        self.predict_panel.activations_button.setEnabled(not busy and self.predict_panel.selected_image() is not None)
        if not busy:
            self.predict_panel.activations.settle()

    def _progress(self, _fraction: float, text: str) -> None:
        if self._line is not None:
            self._line.setText(f"{self.panel.label}: {text}")

    def _done(self, result: Any) -> None:
        if result is None:
            self._failed("")
            return
        if self._line is None:
            self.panel.show_status(self.summary_text() or f"The {self.panel.label} is done.")  # the evaluation stays
        self._on_result(result)

    def _cancelled(self) -> None:
        if self._line is not None:  # a prediction's own line (the header's is the panel's)
            self._line.setText("Cancelled.")

    def _failed(self, message: str) -> None:
        label = self.panel.label
        if self._line is self.predict_panel.status:  # the Predict page says it (a pasted row: on its line only)
            if self.predict_panel.show_failure(message) is None:
                return
        else:
            self.panel.show_status(FAILED_LINE, error=True)
        self.session.error.emit(label.capitalize(), message or f"the {label} failed")

    def shutdown(self) -> None:
        self.panel.cancel()
