"""The Attention tab: how a Transformer run's heads formed while it trained, on an input you type or pick.

Pick a run (one with attention snapshots, or a Transformer), then an input: one of the validation inputs kept
with every snapshot (instant), a test image (image runs) or typed text (text runs, tokenised with the run's
vocabulary; unknown words shown as <oov>). The maps of every snapshot are computed in one background job
(``engine/tasks/attention.py``), so the step slider replays the formation without waiting. Left: every layer ×
head (for images, each head's attention from [CLS] over the patches). Right: one map in full with its tokens on
the axes (or the image under its attention rollout, Abnar & Zuidema 2020), and the token embeddings projected on
their two principal components with the words written on them. No torch is imported here.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSlider,
    QSpinBox,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from studio.core.contracts import layout
from studio.core.contracts.attention import AttentionRequest
from studio.core.errors import StudioError
from studio.gui.widgets.job_panel import JobPanel, Words
from studio.gui.widgets.run_picker import RunBox, RunPicker, run_names

COLOURS = "viridis"
PROBES = 4  # engine/callbacks/attention_snapshots.PROBES (not imported: that module imports torch)
MAX_TICKS = 40  # more tokens than this: every other label, and so on
HINT = ("No Transformer runs yet.\n\nTrain a vit (image datasets) or another Transformer: every "
        "train.attention_every steps (default 50) the run keeps its attention, so this tab can replay how "
        "its heads formed, for any input you pick or type.")


def transformer_runs(session: Any) -> list[Any]:
    """The store's runs with attention snapshots, or whose model is tagged "attention" (read from the stored
    config's [model] name, not a full RunConfig: a big store stays quick)."""
    import tomllib

    from studio.core.models import MODELS

    tagged = {e.name for e in MODELS if "attention" in e.tags}
    out = []
    for run in session.store.list():
        if layout.attention_dir(run.dir).is_dir():
            out.append(run)
            continue
        try:
            if tomllib.loads(run.config).get("model", {}).get("name") in tagged:
                out.append(run)
        except (tomllib.TOMLDecodeError, AttributeError):
            continue
    return out


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _ticks(labels: list[str], room_px: float | None = None) -> list[tuple[float, str]]:
    """A tick per token at its cell's centre; every k-th only when they would not fit (at most ``MAX_TICKS``, and
    for a horizontal axis of ``room_px`` pixels, labels of ~7 px a character side by side)."""
    every = max(1, int(np.ceil(len(labels) / MAX_TICKS)))
    if room_px and labels:
        widest = 7 * max(len(label) for label in labels) + 6
        every = max(every, int(np.ceil(widest / max(room_px / len(labels), 1.0))))
    return [(i + 0.5, label) for i, label in enumerate(labels) if i % every == 0]


class AttentionTab(QWidget, RunPicker):
    """Run, input and step; every layer × head, one map (or rollout) in full, and the embeddings in 2-D."""

    uses_settings_panel = False
    absent_reason = "not a Transformer: no attention to show"
    holds_while_busy = False  # the maps of another run are computed instead (the job panel replaces its job)

    def __init__(self, session: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.result: dict[str, Any] | None = None
        self.computed_for: tuple[str, tuple[str, ...]] | None = None  # (run, its saved weights) of the maps asked for
        # Show/Cancel (one button, in the input row), the bar and the line that says what is shown
        self.panel = JobPanel("Show", toggle=True, replaces=True, words=Words(
            starting="computing the maps…", progress="computing the maps… {text}", failed="{message}"))
        self.panel.run_clicked.connect(self.compute)
        self.panel.done.connect(self.show_result)
        self.show_button = self.panel.run_button
        self.info = self.panel.status

        self.run_box = RunBox("The Transformer run whose attention to show")
        self.run_box.setMinimumContentsLength(24)
        self.run_box.currentIndexChanged.connect(self._run_changed)
        self.source = QComboBox()
        self.source.setToolTip("The input: a validation input kept with every snapshot (instant), a test image or "
                               "text you type")
        self.source.currentIndexChanged.connect(self._source_changed)
        self.image_index = QSpinBox()
        self.image_index.setRange(0, 1_000_000)
        self.image_index.setToolTip("Which test image (its index in the test split)")
        self.text = QLineEdit()
        self.text.setPlaceholderText("type a sentence, e.g. the cat sat on the mat")
        self.text.setToolTip("Tokenised with the run's vocabulary; words it does not know are shown as <oov>")
        self.text.returnPressed.connect(self.compute)
        self.show_button.setToolTip("Compute the attention of this input at every snapshot (a background job)")
        bar = QHBoxLayout()
        bar.addWidget(QLabel("Run"))
        bar.addWidget(self.run_box, 2)
        bar.addWidget(QLabel("Input"))
        bar.addWidget(self.source)
        bar.addWidget(self.image_index)
        bar.addWidget(self.text, 2)
        bar.addWidget(self.show_button)

        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setToolTip("The snapshot step: drag to replay how the heads formed")
        self.slider.setEnabled(False)
        self.slider.valueChanged.connect(self.draw)
        self.step_label = QLabel("step –")
        self.step_label.setMinimumWidth(90)
        self.focus_box = QComboBox()
        self.focus_box.setToolTip("The map shown in full on the right: attention rollout through every layer, or "
                                  "one layer's head")
        self.focus_box.setMinimumContentsLength(15)
        self.focus_box.currentIndexChanged.connect(self.draw)
        steps = QHBoxLayout()
        steps.addWidget(QLabel("Step"))
        steps.addWidget(self.slider, 1)
        steps.addWidget(self.step_label)
        steps.addWidget(QLabel("Full view"))
        steps.addWidget(self.focus_box)

        self.grid = pg.GraphicsLayoutWidget()
        self.grid.setToolTip("Every layer (rows) × head (columns); brighter: more attention")
        self.cells: list[list[pg.ImageItem]] = []
        self.focus = pg.PlotWidget()
        self.focus.setMenuEnabled(False)
        self.focus.hideButtons()
        self.focus.invertY(True)
        self.focus.setAspectLocked(True)
        self.focus_image = pg.ImageItem(axisOrder="row-major")
        self.overlay = pg.ImageItem(axisOrder="row-major")
        self.overlay.setOpacity(0.55)
        self.focus.addItem(self.focus_image)
        self.focus.addItem(self.overlay)
        self.colorbar = pg.ColorBarItem(colorMap=pg.colormap.get(COLOURS), interactive=False, width=10,
                                        label="attention")
        self.colorbar.setImageItem(self.focus_image, insert_in=self.focus.getPlotItem())
        self.embedding = pg.PlotWidget()
        self.embedding.setMenuEnabled(False)
        self.embedding.hideButtons()
        self.scatter = pg.ScatterPlotItem(size=7, pen=None)
        self.embedding.addItem(self.scatter)
        self.words: list[pg.TextItem] = []
        right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(self.focus)
        right.addWidget(self.embedding)
        views = QSplitter(Qt.Orientation.Horizontal)
        views.addWidget(self.grid)
        views.addWidget(right)
        views.setStretchFactor(0, 1)
        views.setStretchFactor(1, 1)
        self.hint = QLabel(HINT)
        self.hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.hint.setWordWrap(True)
        self.pages = QStackedWidget()
        self.pages.addWidget(self.hint)
        self.pages.addWidget(views)
        main = QVBoxLayout(self)
        main.addLayout(bar)
        main.addLayout(steps)
        main.addWidget(self.panel)
        main.addWidget(self.pages, 1)
        session.runs_changed.connect(self.refresh_runs)
        session.run_ended.connect(self._run_ended)
        self.connect_picker()
        self.refresh_runs()
        self._follow_selection(session.selected_runs())

    @property
    def busy(self) -> bool:
        return self.panel.busy

    # --- runs and inputs ----------------------------------------------------------------------------------
    def refresh_runs(self) -> None:
        """Reload the Transformer runs, keeping the current choice."""
        current = self.run_box.currentData()
        chosen = self.fill_runs(transformer_runs(self.session))
        if chosen != current:
            self._run_changed()
        self._show_page()

    def _show_page(self) -> None:
        """The maps for a chosen run; else the hint: why the selected run has none, or how to get Transformer
        runs."""
        if self.run_box.currentData():
            self.pages.setCurrentIndex(1)
            return
        absent = self.run_box.absent
        self.hint.setText(f"{absent[0]} is not a Transformer run: it has no attention to show.\n\nPick a "
                          "Transformer run in the Run box, or select one in the run list." if absent else HINT)
        self.pages.setCurrentIndex(0)

    def _run_ended(self, run_id: str, _status: str = "", _message: str = "") -> None:
        """The chosen run ended: its final weights are saved now, so its maps are computed again."""
        if run_id == self.run_box.currentData():
            self.compute()

    def showEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        """Shown again: the maps follow the run's newest saved weights (it may have saved more meanwhile)."""
        super().showEvent(event)
        run_id = self.run_box.currentData()
        if run_id and not self.busy and self.computed_for != (run_id, self._saved(run_id)):
            self.compute()

    def _saved(self, run_id: str) -> tuple[str, ...]:
        """The run's saved weights the maps come from: its attention snapshots and checkpoints."""
        try:
            run_dir = self.session.store.get(run_id).dir
        except StudioError:
            return ()
        refs = layout.list_attention(run_dir) + layout.list_checkpoints(run_dir, with_final=True)
        return tuple(r.path.name for r in refs)

    def clear_view(self) -> None:
        """Nothing shown: no grid, no full view, no embedding (never another run's maps under this run's name)."""
        self.result = None
        self.grid.clear()
        self.cells = []
        self.focus_image.clear()
        self.overlay.clear()
        self.overlay.setVisible(False)
        self.focus.getPlotItem().setTitle("")
        for item in self.words:
            self.embedding.removeItem(item)
        self.words = []
        self.scatter.clear()
        self.embedding.getPlotItem().setTitle("")
        self.slider.setEnabled(False)
        self.step_label.setText("step –")

    def _is_image_run(self) -> bool:
        from studio.core.datasets import DATASETS

        run_id = self.run_box.currentData()
        try:
            return "text" not in DATASETS.get(self.session.store.get(run_id).run_config.data.name).tags
        except (StudioError, KeyError, ValueError):
            return True

    def _run_changed(self) -> None:
        self.clear_view()
        self.computed_for = None
        self._show_page()
        if not self.run_box.currentData():
            self.panel.cancel()
            self.panel.show_status("")
        image = self._is_image_run()
        self.source.blockSignals(True)
        self.source.clear()
        kind = "image" if image else "text"
        for k in range(PROBES):
            self.source.addItem(f"validation {kind} {k}", ("probe", k))
        self.source.addItem("test image…" if image else "typed text", ("image", 0) if image else ("text", 0))
        self.source.blockSignals(False)
        self._source_changed()  # the first validation input: its maps are computed at once

    def _source_changed(self) -> None:
        kind, _ = self.source.currentData() or ("probe", 0)
        self.image_index.setVisible(kind == "image")
        self.text.setVisible(kind == "text")
        if kind == "probe" and self.run_box.currentData():
            self.compute()

    def request(self) -> AttentionRequest | None:
        run_id = self.run_box.currentData()
        if not run_id:
            return None
        run_dir = str(self.session.store.get(run_id).dir)
        kind, k = self.source.currentData() or ("probe", 0)
        if kind == "text":
            return AttentionRequest(run_dir, text=self.text.text())
        if kind == "image":
            return AttentionRequest(run_dir, image=self.image_index.value())
        return AttentionRequest(run_dir, probe=k)

    def compute(self) -> None:
        """Start the job computing the maps of the chosen input at every snapshot (replaces one in progress)."""
        run_id = self.run_box.currentData()
        try:
            request = self.request()
            if request is None:
                return
            request.validate()
        except StudioError as err:
            self.panel.show_status(str(err), error=True)
            return
        saved = self._saved(run_id)
        self.computed_for = (run_id, saved)
        if not saved:  # said plainly, no failed job: the maps come when the run saves weights
            self.panel.cancel()
            self.clear_view()
            name = run_names(self.session).get(run_id, run_id)
            self.panel.show_status(f"{name} has saved no weights yet: its maps appear here when it saves its first "
                                   "snapshot or checkpoint.")
            return
        self.panel.start(self.session.start(request))  # (one in progress is cancelled)

    # --- drawing ------------------------------------------------------------------------------------------
    def show_result(self, result: dict[str, Any]) -> None:
        """Take a finished job's maps: the slider spans its steps (at the last), the grid gets a cell per head."""
        current = self.run_box.currentData()
        if current and result.get("run_id") != current:
            return  # the maps of a run no longer chosen (its folder is named by its id)
        self.result = result
        frames = result["frames"]
        layers, heads = frames[0]["maps"].shape[:2]
        self.grid.clear()
        self.cells = []
        for head in range(heads):
            self.grid.addLabel(f"head {head + 1}", row=0, col=head + 1)
        for layer in range(layers):
            self.grid.addLabel(f"layer {layer + 1}", row=layer + 1, col=0, angle=-90)
            row = []
            for head in range(heads):
                view = self.grid.addViewBox(row=layer + 1, col=head + 1, lockAspect=True, invertY=True)
                view.setMouseEnabled(False, False)
                item = pg.ImageItem(axisOrder="row-major")
                item.setColorMap(pg.colormap.get(COLOURS))
                view.addItem(item)
                row.append(item)
            self.cells.append(row)
        focus = self.focus_box.currentText()
        self.focus_box.blockSignals(True)
        self.focus_box.clear()
        self.focus_box.addItem("rollout", None)
        for layer in range(layers):
            for head in range(heads):
                self.focus_box.addItem(f"layer {layer + 1} head {head + 1}", (layer, head))
        self.focus_box.setCurrentIndex(max(self.focus_box.findText(focus), 0))
        self.focus_box.blockSignals(False)
        self.slider.blockSignals(True)
        self.slider.setRange(0, len(frames) - 1)
        self.slider.setValue(len(frames) - 1)
        self.slider.setEnabled(len(frames) > 1)
        self.slider.blockSignals(False)
        self.draw()

    def frame(self) -> dict[str, Any] | None:
        if not self.result:
            return None
        return self.result["frames"][min(self.slider.value(), len(self.result["frames"]) - 1)]

    def draw(self) -> None:
        """Show the slider's step: every cell, the full view and the embedding."""
        r, f = self.result, self.frame()
        if r is None or f is None:
            return
        image_run = r["kind"] == "image" and f["patch_maps"] is not None
        for layer, row in enumerate(self.cells):
            for head, item in enumerate(row):
                shown = f["patch_maps"][layer, head] if image_run else f["maps"][layer, head]
                item.setImage(np.asarray(shown, np.float32), autoLevels=True)
        self.step_label.setText(f"step {f['step']}")
        self._draw_focus(r, f)
        self._draw_embedding(r, f)
        what = "[CLS]'s attention over the patches" if image_run else "rows: the token that looks, columns: where"
        oov = f" · not in the vocabulary (<oov>): {', '.join(r['oov'])}" if r["oov"] else ""
        causal = " · causal: no token sees the future" if r["causal"] else ""
        heads = len(self.cells[0]) if self.cells else 0
        self.panel.show_status(f"{r['input']} · {plural(len(r['steps']), 'snapshot')}, steps {r['steps'][0]}–"
                               f"{r['steps'][-1]} · {plural(len(self.cells), 'layer')} × {plural(heads, 'head')}, "
                               f"{what}{causal}{oov}")

    def _draw_focus(self, r: dict[str, Any], f: dict[str, Any]) -> None:
        pick = self.focus_box.currentData()
        plot = self.focus.getPlotItem()
        if r["kind"] == "image" and f["patch_rollout"] is not None and pick is None:
            image = np.asarray(r["image"], np.float32)
            self.focus_image.setImage(image, autoLevels=True)
            self.focus_image.setColorMap(pg.colormap.get("CET-L1"))  # grey
            heat = np.asarray(f["patch_rollout"], np.float32)
            self.overlay.setImage(heat, levels=(0.0, float(heat.max()) or 1.0))
            self.overlay.setColorMap(pg.colormap.get("inferno"))
            self.overlay.setRect(0, 0, image.shape[1], image.shape[0])
            self.overlay.setVisible(True)
            self.colorbar.setImageItem(self.overlay)  # the bar reads the rollout, not the grey image under it
            self.colorbar.setColorMap(pg.colormap.get("inferno"))
            self.colorbar.setLevels((0.0, float(heat.max()) or 1.0))
            self.focus_image.setLevels((float(image.min()), float(image.max()) or 1.0))
            for side in ("left", "bottom"):
                plot.getAxis(side).setTicks(None)
            plot.setTitle(f"attention rollout over the image · step {f['step']}")
            self.focus.autoRange(padding=0)
            return
        self.overlay.setVisible(False)
        self.colorbar.setImageItem(self.focus_image)
        self.colorbar.setColorMap(pg.colormap.get(COLOURS))
        shown = f["rollout"] if pick is None else f["maps"][pick[0], pick[1]]
        shown = np.asarray(shown, np.float32)
        self.focus_image.setImage(shown, levels=(0.0, float(shown.max()) or 1.0))
        self.focus_image.setColorMap(pg.colormap.get(COLOURS))
        self.focus_image.setRect(0, 0, shown.shape[1], shown.shape[0])
        self.colorbar.setLevels((0.0, float(shown.max()) or 1.0))
        side = min(self.focus.width() * 0.8, self.focus.height() * 0.8)  # the square map's size on screen
        plot.getAxis("left").setTicks([_ticks(r["tokens"])])
        plot.getAxis("bottom").setTicks([_ticks(r["tokens"], side)])
        name = "rollout through every layer" if pick is None else f"layer {pick[0] + 1} head {pick[1] + 1}"
        plot.setTitle(f"{name} · step {f['step']}")
        self.focus.autoRange(padding=0)

    def _draw_embedding(self, r: dict[str, Any], f: dict[str, Any]) -> None:
        for item in self.words:
            self.embedding.removeItem(item)
        self.words = []
        xy = np.asarray(f["embedding"], np.float64)
        if not len(xy):
            self.scatter.clear()
            return
        own = np.asarray(r["embedding_input"], bool)
        brushes = [pg.mkBrush("#e8590c") if o else pg.mkBrush(120, 120, 120, 160) for o in own]
        self.scatter.setData(xy[:, 0], xy[:, 1], brush=brushes)
        for (x, y), label, o in zip(xy, r["embedding_labels"], own, strict=False):
            text = pg.TextItem(label, color="#e8590c" if o else (128, 128, 128), anchor=(0, 1))
            text.setPos(float(x), float(y))
            self.embedding.addItem(text)
            self.words.append(text)
        v = f["variance"]
        what = "token embeddings" if r["kind"] == "text" else "patch tokens"
        self.embedding.getPlotItem().setTitle(f"{what} · PCA {v[0]:.0%} + {v[1]:.0%}")
        self.embedding.setToolTip(f"The {what} (for images: as they enter layer 1) projected on their two "
                                  "principal components; the share of the variance each axis keeps is in the title")
        self.embedding.autoRange()

    def shutdown(self) -> None:
        self.panel.cancel()
