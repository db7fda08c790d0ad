"""The Data tab: sample images per class, class counts, size and channels, the train/val/test
split, and a preview of the augmentation (computed in a background process, which has torch).

Reads the dataset cache's memory-mapped arrays (studio/core/datasets/summary.py); no torch here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage, QPixmap
from PySide6.QtWidgets import (
    QGridLayout,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from studio.core.contracts.jobs import PreviewRequest
from studio.core.errors import StudioError
from studio.gui.widgets.job_panel import JobPanel, Words

if TYPE_CHECKING:
    from studio.core.datasets.summary import DatasetSummary

MIN_TILE = 40  # small images are shown enlarged to at least this many pixels high
PREVIEW_COUNT = 16
TEXT_LINES_SHOWN = 2000  # of a text corpus, in the Data tab


def to_pixmap(images: np.ndarray, min_height: int = MIN_TILE, gap: int = 2) -> QPixmap:
    """A row of uint8 (k, C, H, W) images as one pixmap, enlarged without smoothing when small."""
    if len(images) == 0:
        return QPixmap()
    k, c, h, w = images.shape
    strip = np.full((h, k * (w + gap) - gap, 3), 255, np.uint8)
    for i, img in enumerate(images):
        rgb = np.repeat(img, 3, axis=0) if c == 1 else img[:3]
        strip[:, i * (w + gap): i * (w + gap) + w] = rgb.transpose(1, 2, 0)
    strip = np.ascontiguousarray(strip)
    qimage = QImage(strip.data, strip.shape[1], strip.shape[0], strip.strides[0], QImage.Format.Format_RGB888).copy()
    pixmap = QPixmap.fromImage(qimage)
    if h < min_height:
        pixmap = pixmap.scaledToHeight(min_height, Qt.TransformationMode.FastTransformation)
    return pixmap


class DataPreview(QWidget):
    """Shows the dataset chosen in the session's ``[data]`` section."""


    def __init__(self, session: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.summary: Any = None
        self._shown: tuple | None = None
        self._controller: Any = None
        # the augmentation preview: its button (Cancel while it runs) beside Fetch, its bar and line in its box
        self.preview_panel = JobPanel("Preview augmentation", toggle=True, words=Words(
            starting="Augmenting a batch in the background…", progress="Augmenting a batch: {text}",
            failed="No preview: {message}", cancelled="No preview: it was cancelled"))
        self.preview_panel.run_clicked.connect(self.preview_augmentation)
        self.preview_panel.done.connect(self._preview_done)

        self.title = QLabel()
        self.title.setObjectName("data_title")
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.info = QLabel()
        self.info.setObjectName("data_info")
        self.info.setWordWrap(True)
        self.fetch_button = QPushButton("Fetch dataset")
        self.fetch_button.setToolTip("Put this classic dataset in the cache: from local files, or a download")
        self.fetch_button.clicked.connect(self.fetch)
        self.resize_button = QPushButton("Size / channels…")
        self.resize_button.setToolTip("Import the source again at another image size or channel count")
        self.resize_button.clicked.connect(self.change_geometry)
        self.augment_button = self.preview_panel.run_button
        self.augment_button.setToolTip("Show a batch of training images after the [data] aug_* transforms")
        buttons = QHBoxLayout()
        for b in (self.fetch_button, self.resize_button, self.augment_button):
            buttons.addWidget(b)
        buttons.addStretch(1)

        self.grid_holder = QWidget()
        self.grid = QGridLayout(self.grid_holder)
        self.grid.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.grid_holder)
        self.image_scroll = scroll
        self.text_view = QPlainTextEdit()  # a text corpus: its lines instead of the image grid
        self.text_view.setObjectName("text_lines")
        self.text_view.setReadOnly(True)
        self.text_view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.text_view.hide()
        self.counts_plot = pg.PlotWidget(title="Images per class")
        self.counts_plot.setObjectName("class_counts")
        self.counts_plot.setMouseEnabled(x=False, y=False)
        self.bars: pg.BarGraphItem | None = None
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(scroll)
        split.addWidget(self.text_view)
        split.addWidget(self.counts_plot)
        split.setSizes([600, 0, 400])
        self.data_split = split

        self.augment_labels = [QLabel("before"), QLabel("after")]
        self.augment_status = self.preview_panel.status
        self.augment_status.setObjectName("augment_status")
        self.augment_before = QLabel()
        self.augment_after = QLabel()
        self.augment_before.setObjectName("augment_before")
        self.augment_after.setObjectName("augment_after")
        aug_box = QGridLayout()
        aug_box.addWidget(self.preview_panel, 0, 0, 1, 2)
        aug_box.addWidget(self.augment_labels[0], 1, 0)
        aug_box.addWidget(self.augment_before, 1, 1)
        aug_box.addWidget(self.augment_labels[1], 2, 0)
        aug_box.addWidget(self.augment_after, 2, 1)

        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(self.info)
        layout.addLayout(buttons)
        layout.addWidget(split, 1)
        layout.addLayout(aug_box)

        session.config_changed.connect(self.refresh)
        session.datasets_changed.connect(lambda: self.refresh(force=True))
        self.refresh(force=True)

    # --- showing the dataset ---------------------------------------------------------------
    def _key(self) -> tuple:
        data = self.session.config.data
        split_params = tuple(sorted((k, v) for k, v in data.params.items() if not k.startswith("aug_")))
        return data.name, split_params, self.session.config.train.val_fraction

    def refresh(self, force: bool = False) -> None:
        """Re-read the chosen dataset when it (or its split) changed."""
        from studio.core.datasets.summary import summarise

        key = self._key()
        if key == self._shown and not force:
            return
        self._shown = key
        name = key[0]
        try:
            s = summarise(name, dict(self.session.config.data.params), self.session.config.train.val_fraction)
        except StudioError as err:
            s = None
            self.title.setText(name)
            self.info.setText(str(err))
        self.summary = s
        self._clear_grid()
        self._show_text_mode(s is not None and bool(s.lines))
        if s is None:
            self._set_counts([], [])
            return
        self.title.setText(f"{name}" + (f" — {s.message}" if s.message and "\n" not in s.message else ""))
        from studio.core.datasets.known import KNOWN

        self.fetch_button.setVisible(name in KNOWN and not s.available)
        self.resize_button.setVisible(s.available and bool(s.source) and name not in KNOWN
                                      and s.source != "bundled with Studio")
        self.preview_panel.set_runnable(s.available)
        if s.lines and s.classes:  # labelled text: its lines with their labels, lines per class
            self._show_labelled(s)
            return
        if s.lines:
            self._show_lines(s.lines)
            return
        if not s.available:
            self.info.setText(s.message)
            self._set_counts([], [])
            return
        c, h, w = s.shape
        sp = s.splits
        lines = [f"{sum(s.counts):,} images, {'grey' if c == 1 else 'colour'} {h}×{w} ({c} channel"
                 f"{'s' if c != 1 else ''}), {len(s.classes)} classes",
                 f"split: train {sp['train']:,} · validation {sp['val']:,} · test {sp['test']:,}"]
        if s.skipped:
            lines.append(f"{s.skipped} {'file was' if s.skipped == 1 else 'files were'} skipped when it was imported")
        lines += s.notes
        if s.source:
            lines.append(f"source: {s.source}")
        self.info.setText("\n".join(lines))
        for row, (label, images) in enumerate(zip(s.classes, s.samples, strict=False)):
            name_label = QLabel(f"{row} · {label} ({s.counts[row]:,})")
            strip = QLabel()
            strip.setPixmap(to_pixmap(images))
            self.grid.addWidget(name_label, row, 0)
            self.grid.addWidget(strip, row, 1)
        if len(s.classes) > len(s.samples):
            self.grid.addWidget(QLabel(f"… and {len(s.classes) - len(s.samples)} more classes"), len(s.samples), 0,
                                1, 2)
        self._set_counts(s.classes, s.counts)

    def _show_text_mode(self, text: bool) -> None:
        """A text corpus has lines, not images: its lines and a length histogram replace the grid, the class
        counts and the augmentation preview."""
        self.image_scroll.setVisible(not text)
        self.text_view.setVisible(text)
        for w in (self.augment_button, self.preview_panel, self.augment_before, self.augment_after,
                  *self.augment_labels):
            w.setVisible(not text)
        self.counts_plot.setTitle("Lines by length" if text else "Images per class")
        width = max(self.data_split.width(), 1000)
        self.data_split.setSizes([0, width * 3 // 5, width * 2 // 5] if text else [width * 3 // 5, 0, width * 2 // 5])
        if not text:
            self.text_view.clear()

    def _show_lines(self, lines: list[str]) -> None:
        words = np.array([len(line.split()) for line in lines], dtype=np.int64)
        shown = lines[:TEXT_LINES_SHOWN]
        self.info.setText(f"{len(lines):,} lines, {int(words.sum()):,} words of text for next-word models (lstm_lm, "
                          "gru_lm); each line becomes its growing prefixes. "
                          + (f"The first {len(shown):,} lines:" if len(shown) < len(lines) else "Its lines:"))
        self.text_view.setPlainText("\n".join(shown))
        counts = np.bincount(words) if len(words) else np.zeros(0, np.int64)
        self._set_counts([str(n) for n in range(len(counts))], counts.tolist())
        self.counts_plot.setLabel("bottom", "words in the line")
        self.counts_plot.getAxis("bottom").setTicks(None)

    def _show_labelled(self, s: DatasetSummary) -> None:
        shown = s.lines[:TEXT_LINES_SHOWN]
        self.title.setText(s.name)  # the message goes below, wrapped: a long title would widen the window
        self.info.setText(s.message + (f" The first {len(shown):,} lines:" if len(shown) < len(s.lines) else ""))
        self.text_view.setPlainText("\n".join(shown))
        self.counts_plot.setTitle("Lines per class")
        self._set_counts(s.classes, s.counts)

    def _clear_grid(self) -> None:
        while self.grid.count():
            item = self.grid.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()

    def _set_counts(self, classes: list[str], counts: list[int]) -> None:
        if self.bars is not None:
            self.counts_plot.removeItem(self.bars)
            self.bars = None
        if counts:
            self.bars = pg.BarGraphItem(x=np.arange(len(counts)), height=np.asarray(counts), width=0.8,
                                        brush=(80, 130, 200))
            self.counts_plot.addItem(self.bars)
            step = max(1, len(classes) // 12)
            # names fit under the bars only when few and short; otherwise class indices (names in the grid)
            short = len(classes) <= 5 and max(len(c) for c in classes) <= 10
            ticks = [(i, classes[i] if short else str(i)) for i in range(0, len(classes), step)]
            self.counts_plot.getAxis("bottom").setTicks([ticks])
            self.counts_plot.setLabel("bottom", "" if short else "class index (names in the grid)")

    def bar_heights(self) -> list[int]:
        """The class counts the chart shows (for tests)."""
        return [] if self.bars is None else [int(v) for v in self.bars.opts["height"]]

    def sample_rows(self) -> int:
        """How many classes have a row of samples in the grid (for tests)."""
        items = (self.grid.itemAt(i) for i in range(self.grid.count()))
        labels = [w for item in items if item is not None and isinstance(w := item.widget(), QLabel)]
        return len([label for label in labels if label.pixmap() and not label.pixmap().isNull()])

    # --- actions ---------------------------------------------------------------------------
    def controller(self) -> Any:
        if self._controller is None:
            from studio.gui.widgets.data_import import ImportController

            self._controller = ImportController(self.session, self.window())
        return self._controller

    def fetch(self) -> None:
        self.controller().fetch(self.session.config.data.name)

    def change_geometry(self) -> None:
        s = self.summary
        if s is None or not s.source:
            return
        c, h, w = s.shape
        text, ok = QInputDialog.getText(self, "Image size", "Height, width (pixels):", text=f"{h},{w}")
        if not ok:
            return
        channels, ok = QInputDialog.getItem(self, "Channels", "Channels:", ["1 (grey)", "3 (colour)"],
                                            0 if c == 1 else 1, False)
        if not ok:
            return
        try:
            from studio.core.datasets.importers.options import parse_ints

            size = list(parse_ints(text, "the size", (2,)))
        except StudioError as err:
            self.session.error.emit("Image size", str(err))
            return
        self.controller().import_path(s.source, {"name": s.name, "size": size, "channels": int(channels[0])})

    @property
    def preview_job(self) -> Any:
        """The JobHandle of the augmentation preview in progress, or None."""
        return self.preview_panel.handle if self.preview_panel.busy else None

    def preview_augmentation(self) -> None:
        """Compute a batch after augmentation in a background job (it needs torch)."""
        if self.preview_panel.busy:
            return
        data = self.session.config.data
        self.preview_panel.start(self.session.start(PreviewRequest(data.name, dict(data.params), PREVIEW_COUNT,
                                                                   self.session.config.train.seed)))

    def _preview_done(self, result: dict[str, Any]) -> None:
        active = [k for k, v in self.session.config.data.params.items() if k.startswith("aug_") and v
                  and k not in ("aug_fill",)]
        self.preview_panel.show_status("Augmentation: " + (", ".join(active) if active else
                                                           "none switched on (set the aug_* options in Data)"))
        self.augment_before.setPixmap(to_pixmap(result["before"]))
        self.augment_after.setPixmap(to_pixmap(result["after"]))

    def closeEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        self.preview_panel.cancel()
        super().closeEvent(event)
