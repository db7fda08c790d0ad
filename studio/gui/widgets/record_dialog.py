"""Record… for slides: a small dialog (what: an MP4 video, a GIF animation, a PNG or SVG still; the size; the
projector style), then where to save it; the frames are drawn with a progress dialog that can stop them
(``widgets/reel.py``). What happened is one sentence for the view's status line: where it was saved, or why not."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QProgressDialog,
    QWidget,
)

from studio.core.errors import StudioError
from studio.gui.widgets.movie_file import encoders_missing
from studio.gui.widgets.reel import SIZES, Reel, record

KINDS = (("mp4", "MP4 video"), ("gif", "GIF animation"), ("png", "PNG still (the last frame)"),
         ("svg", "SVG still (the last frame, vector)"))


@dataclass(frozen=True)
class RecordOptions:
    kind: str = "mp4"  # a suffix of KINDS
    size: tuple[int, int] = SIZES[0]
    presentation: bool = True  # large type, thick lines, black on white: for a projector


class RecordDialog(QDialog):
    """The choices; ``options()`` once accepted."""

    def __init__(self, what: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Record {what}")
        self.kind = QComboBox()
        self.kind.setObjectName("record_kind")
        missing = encoders_missing(".mp4")
        for key, text in KINDS:
            self.kind.addItem(text, key)
            if missing and key == "mp4":
                item = self.kind.model().item(self.kind.count() - 1)  # type: ignore[attr-defined]
                item.setEnabled(False)
                item.setToolTip(missing)
        if missing:
            self.kind.setCurrentIndex(1)
        self.size_box = QComboBox()
        self.size_box.setObjectName("record_size")
        for w, h in SIZES:
            shape = " (16:9)" if w * 9 == h * 16 else " (4:3)" if w * 3 == h * 4 else ""
            self.size_box.addItem(f"{w} × {h}{shape}", (w, h))
        self.presentation = QCheckBox("Projector style: large type, thick lines")
        self.presentation.setObjectName("record_presentation")
        self.presentation.setChecked(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        form.addRow("Save as", self.kind)
        form.addRow("Size", self.size_box)
        form.addRow("", self.presentation)
        form.addRow(buttons)

    def options(self) -> RecordOptions:
        return RecordOptions(str(self.kind.currentData()), tuple(self.size_box.currentData()),
                             self.presentation.isChecked())


def save_recording(make_reel: Callable[[bool], Reel], path: str | Path, options: RecordOptions,
                   parent: QWidget | None = None) -> tuple[str, bool]:
    """Draw and write the recording (a progress dialog over ``parent`` when given); (the sentence to show,
    whether it failed)."""
    path = Path(path)
    if path.suffix.lower() != f".{options.kind}":
        path = path.with_name(path.name + f".{options.kind}")
    progress = None
    if parent is not None:
        progress = QProgressDialog("Drawing the frames…", "Stop", 0, 100, parent)
        progress.setWindowModality(Qt.WindowModality.WindowModal)
        progress.setMinimumDuration(300)

    def step(done: int, total: int) -> bool:
        if progress is None:
            return True
        progress.setMaximum(total)
        progress.setValue(done)
        return not progress.wasCanceled()

    try:
        reel = make_reel(options.presentation)
        made = record(reel, path, options.size, step=step)
    except StudioError as err:
        return f"Not recorded: {str(err).rstrip('.')}.", True
    finally:
        if progress is not None:
            progress.close()
    frames = f"{made.frames} frames, " if made.frames > 1 else ""
    return f"Recorded {made.path.name} ({frames}{made.size[0]} × {made.size[1]}) in {made.path.parent}.", False


def ask_and_record(what: str, make_reel: Callable[[bool], Reel], default_name: str,
                   parent: QWidget) -> tuple[str, bool] | None:
    """The dialog, the file chooser, the recording; None when the person cancelled."""
    dialog = RecordDialog(what, parent)
    if dialog.exec() != QDialog.DialogCode.Accepted:
        return None
    options = dialog.options()
    label = dict(KINDS)[options.kind]
    path, _ = QFileDialog.getSaveFileName(parent, f"Save the {label}", f"{default_name}.{options.kind}",
                                          f"{label} (*.{options.kind})")
    if not path:
        return None
    return save_recording(make_reel, path, options, parent)
