"""The side panels built from the registries and the plain config sections.

The yellow note at the top (what does not fit, ``core/config/fit_check.py``) comes and goes as the settings change;
the fields under the pointer stay where they are (issue 33.5: the next click landed on another field). While the
panel is scrolled, a note that appears, grows or shrinks above the view moves the scroll by its change in height,
so nothing on screen moves; a note that goes while it is in view keeps its place (saying the settings fit now)
until the pointer leaves the panel."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QCursor
from PySide6.QtWidgets import QGroupBox, QLabel, QPushButton, QScrollArea, QToolButton, QVBoxLayout, QWidget

from studio.core.config import train_params
from studio.gui.panels.hardware import HardwarePanel
from studio.gui.session.session import registry_for
from studio.gui.widgets.code_form import CodeForm
from studio.gui.widgets.forms import PlainForm, RegistryForm

BASIC_TRAIN = ("epochs", "batch_size", "val_fraction", "seed")  # the rest sits under "Advanced settings"
NOTE_STYLE = "QLabel { background: #fff3cd; color: #664d03; border: 1px solid #e0c060; padding: 4px; }"
FITS_NOW = "✓ The settings fit together now."  # the note's place, kept while the pointer is over the panel
FITS_STYLE = "QLabel { border: 1px solid palette(mid); padding: 4px; }"


def too_big(config: Any) -> list[str]:
    """The sentence Train would refuse a model too big for this machine's memory with (core/estimates/footprint.py),
    said before Train is pressed."""
    from studio.core.errors import ConfigError
    from studio.core.estimates.footprint import check_fits

    try:
        check_fits(config)
    except ConfigError as err:
        text = str(err)
        return [f"{text[:1].upper()}{text[1:]}."]  # a sentence of the note
    except Exception:  # noqa: BLE001 - an estimate must never break the panel
        pass
    return []


class SettingsPanels(QScrollArea):
    """Data, model, optimizer, schedule, training and hardware, top to bottom."""

    def __init__(self, session: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.setWidgetResizable(True)
        inner = QWidget()
        layout = QVBoxLayout(inner)
        self.inner, self.inner_layout = inner, layout  # the scrolled widget and its column of groups
        # what does not fit together (core/config/fit_check.py), said before Train is pressed
        self.warnings = QLabel("")
        self.warnings.setObjectName("fit_warnings")
        self.warnings.setWordWrap(True)
        self.warnings.setStyleSheet(NOTE_STYLE)
        self.warnings.setVisible(False)
        self.holding = False  # the note went while in view: its place is kept until the pointer leaves
        layout.addWidget(self.warnings)
        self.forms: dict[str, RegistryForm] = {}
        for section, title in (("data", "Data"), ("model", "Model"), ("optimizer", "Optimizer"),
                               ("schedule", "Learning-rate schedule")):
            form = RegistryForm(session, section, registry_for(section), code_form=CodeForm)
            self.forms[section] = form
            below: list[QWidget] = []
            if section == "model":
                self.summary_button = QPushButton("Summary…")
                self.summary_button.setObjectName("model_summary")
                self.summary_button.setToolTip("Layers, output shapes, parameter counts and FLOPs per sample")
                self.summary_button.clicked.connect(self.show_model_summary)
                below.append(self.summary_button)
                # what picking the model set (its suggested train settings) and why; goes at the next edit
                self.suggested_note = QLabel("")
                self.suggested_note.setObjectName("suggested_note")
                self.suggested_note.setWordWrap(True)
                self.suggested_note.setStyleSheet(FITS_STYLE)
                self.suggested_note.setVisible(False)
                below.append(self.suggested_note)
            layout.addWidget(self._group(title, form, *below))
        params = train_params()
        self.train_form = PlainForm(session, "train", [p for p in params if p.name in BASIC_TRAIN])
        self.advanced_form = PlainForm(session, "train", [p for p in params if p.name not in BASIC_TRAIN])
        self.advanced_form.setObjectName("advanced_training")
        self.advanced_button = QToolButton()
        self.advanced_button.setObjectName("show_advanced")
        self.advanced_button.setText("Advanced settings")
        self.advanced_button.setCheckable(True)
        self.advanced_button.setArrowType(Qt.ArrowType.RightArrow)
        self.advanced_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.advanced_button.setToolTip("Checkpoints, curve points, regularisers, stopping rules, large-batch tools "
                                        "and live landscapes")
        self.advanced_button.toggled.connect(self.show_advanced)
        self.advanced_form.setVisible(False)
        training = QWidget()
        training_layout = QVBoxLayout(training)
        training_layout.setContentsMargins(0, 0, 0, 0)
        training_layout.addWidget(self.train_form)
        self.global_batch = QLabel("")  # batch × k × ranks = G (core/config/global_batch.py)
        self.global_batch.setObjectName("global_batch")
        self.global_batch.setWordWrap(True)
        self.global_batch.setToolTip("Samples per optimizer step over all processes: the batch each process takes "
                                     "per micro-step × train.accumulate_steps × hardware.processes. The samples "
                                     "axis and the linear scaling rule use it.")
        training_layout.addWidget(self.global_batch)
        training_layout.addWidget(self.advanced_button)
        training_layout.addWidget(self.advanced_form)
        layout.addWidget(self._group("Training", training))
        self.hardware = HardwarePanel(session)
        layout.addWidget(self._group("Hardware", self.hardware))
        layout.addStretch(1)
        self.setWidget(inner)
        self.setMinimumWidth(300)
        session.datasets_changed.connect(self.forms["data"].refresh_entries)
        session.config_changed.connect(self.check_fit)
        session.config_changed.connect(self._note_still_true)
        session.suggested.connect(self.show_suggested)
        self._noted: dict[str, Any] | None = None  # the config the suggested note speaks of
        self.check_fit()

    def show_suggested(self, note: str) -> None:
        """A model was picked: show what its suggested settings set (or undid), and the fields' new values."""
        for section in ("optimizer", "schedule"):
            self.forms[section].rebuild()
        self.train_form.reload()
        self.advanced_form.reload()
        self.suggested_note.setText(note)
        self.suggested_note.setVisible(bool(note))
        self._noted = self.session.config.to_dict() if note else None

    def _note_still_true(self) -> None:
        """The note goes once a setting is edited: it spoke of the values the pick set."""
        if self._noted is not None and self.session.config.to_dict() != self._noted:
            self._noted = None
            self.suggested_note.setVisible(False)

    def show_advanced(self, on: bool) -> None:
        self.advanced_form.setVisible(on)
        self.advanced_button.setChecked(on)
        self.advanced_button.setArrowType(Qt.ArrowType.DownArrow if on else Qt.ArrowType.RightArrow)

    def check_fit(self) -> list[str]:
        """Show what does not fit between model, data and batch size, and a model too big for this machine's
        memory; hide [train]'s validation share when the dataset has its own (one "val fraction", not two).
        Returns the warnings Train asks about (a model too big is refused by Train itself, in one sentence)."""
        from studio.core.config.fit_check import fit_warnings

        config = self.session.config
        own_split = "val_fraction" in config.data.params
        self.train_form.set_row_visible("val_fraction", not own_split)
        try:
            found = fit_warnings(config)
        except Exception:  # noqa: BLE001 - a check must never break the panel (e.g. a dataset being imported)
            found = []
        shown = found + too_big(config)  # Train refuses this one itself: it is said, not asked about
        self.show_global_batch()
        self.show_note(shown)
        return found

    def show_note(self, found: list[str]) -> None:
        """Show the warnings ``found`` in the note (none: no note) without moving the fields on screen."""
        bar = self.verticalScrollBar()
        below = self._below_note()
        before, value = below.y(), bar.value()
        in_view = self.warnings.isVisible() and value < before
        if not found and in_view and self._pointer_inside():
            self.holding = True  # gone while in view, under the pointer's eyes: keep its place for now
            self.warnings.setMinimumHeight(self.warnings.height())
            self.warnings.setStyleSheet(FITS_STYLE)
            self.warnings.setText(FITS_NOW)
            return
        self.holding = False
        self.warnings.setMinimumHeight(0)
        self.warnings.setStyleSheet(NOTE_STYLE)
        self.warnings.setText("\n\n".join(f"⚠ {w}" for w in found))
        self.warnings.setVisible(bool(found))
        self._keep_in_place(below, before, value)

    def _below_note(self) -> QWidget:
        """The first widget under the note: where it starts tells how much room the note takes."""
        layout = self.inner_layout
        item = layout.itemAt(layout.indexOf(self.warnings) + 1)
        widget = item.widget() if item is not None else None
        assert widget is not None
        return widget

    def _keep_in_place(self, below: QWidget, before: int, value: int) -> None:
        """The note's height changed: scroll by as much, so what was on screen stays (at the very top, the note
        shows and pushes the fields down: it is what the person is to see)."""
        inner = self.inner
        self.inner_layout.activate()  # the new geometry now, not at the next turn of the event loop
        inner.resize(inner.width(), max(inner.minimumSizeHint().height(), self.viewport().height()))
        bar = self.verticalScrollBar()
        bar.setRange(0, max(0, inner.height() - self.viewport().height()))
        shift = below.y() - before
        if shift and value > 0:
            bar.setValue(max(0, value + shift))

    def _pointer_inside(self) -> bool:
        return self.rect().contains(self.mapFromGlobal(QCursor.pos()))

    def leaveEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt override
        """The pointer left: a note kept in place for it goes now."""
        super().leaveEvent(event)
        if self.holding:
            self.show_note([])

    def show_global_batch(self) -> str:
        from studio.core.config.global_batch import global_batch

        per_rank, k, ranks, total = global_batch(self.session.config)
        text = f"global batch: {per_rank} × {k} × {ranks} = {total}  (batch × accumulate × processes)"
        self.global_batch.setText(text)
        return text

    def show_model_summary(self) -> QWidget:
        from studio.gui.widgets.model_summary import ModelSummaryDialog

        dialog = ModelSummaryDialog(self.session, self.session.config.copy(), self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        return dialog

    @staticmethod
    def _group(title: str, *widgets: QWidget) -> QGroupBox:
        box = QGroupBox(title)
        box.setObjectName(f"group_{title.split()[0].lower()}")
        lay = QVBoxLayout(box)
        lay.setContentsMargins(2, 2, 2, 2)
        for widget in widgets:
            lay.addWidget(widget)
        return box

    def reload(self) -> None:
        """Show the session's config again (after a config was loaded)."""
        for form in self.forms.values():
            form.rebuild()
        self.train_form.reload()
        self.advanced_form.reload()
        self.hardware.load_from_config()
