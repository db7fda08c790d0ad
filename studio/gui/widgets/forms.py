"""Forms built from registry parameters: the GUI stays thin, every registry entry gets a form."""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtGui import QValidator
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QWidget,
)

from studio.core.contracts.registry import Entry, Param, Registry
from studio.core.errors import StudioError
from studio.gui.widgets import wheel_guard


class SciSpinBox(QDoubleSpinBox):
    """A spin box for log-scale values (learning rates): shows 1e-05, steps by ×2 / ÷2."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setDecimals(12)

    def textFromValue(self, value: float) -> str:  # noqa: N802 - Qt override
        return f"{value:.4g}"

    def valueFromText(self, text: str) -> float:  # noqa: N802 - Qt override
        try:
            return float(text)
        except ValueError:
            return self.value()

    def validate(self, text: str, pos: int) -> tuple[QValidator.State, str, int]:
        try:
            float(text)
            return QValidator.State.Acceptable, text, pos
        except ValueError:
            return QValidator.State.Intermediate, text, pos

    def stepBy(self, steps: int) -> None:  # noqa: N802 - Qt override
        self.setValue(self.value() * (2.0 ** steps))


class TidySpinBox(QDoubleSpinBox):
    """A decimal spin box that shows a value with the decimals it needs: 10 minutes as "10", 0 degrees as "0",
    0.999 as "0.999" (Qt's own shows every value with its fixed decimals: "10.0000"). It keeps
    :data:`TIDY_DECIMALS` internally, so a value typed with more decimals than shown is not lost."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setDecimals(TIDY_DECIMALS)

    def textFromValue(self, value: float) -> str:  # noqa: N802 - Qt override
        return tidy(super().textFromValue(value), self.locale().decimalPoint())


TIDY_DECIMALS = 6


def tidy(text: str, point: str = ".") -> str:
    """``text`` (a number with a fixed count of decimals) without trailing zeros: "10.0000" → "10"."""
    if point in text:
        text = text.rstrip("0").rstrip(point)
    return "0" if text in ("-0", "") else text


# Labels with their units (a parameter's name alone does not say "epochs" or "degrees").
LABELS = {
    "batch_size": "batch size (samples)", "val_fraction": "validation share (0–1)",
    "test_fraction": "test share (0–1)", "metric_interval": "curve point every (steps)",
    "checkpoint_every": "checkpoint every (epochs)", "early_stop_patience": "early-stop patience (epochs)",
    "early_stop_min_delta": "early-stop min. decrease (loss)", "batch_growth_every": "batch growth every (epochs)",
    "batch_growth": "batch growth (× factor)", "landscape_every": "landscape every (epochs)",
    "sharpness_every": "sharpness every (epochs)", "histogram_every": "histograms every (steps)",
    "grad_clip": "gradient clip (max L2 norm)",
    "grad_noise": "gradient noise (η)", "ghost_batch": "ghost batch (samples)", "base_batch": "base batch (samples)",
    "label_smoothing": "label smoothing (ε)", "lr_scaling": "linear lr scaling",
    "aug_rotation": "aug rotation (± degrees)", "aug_zoom": "aug zoom (± fraction)",
    "aug_width_shift": "aug width shift (± fraction)", "aug_height_shift": "aug height shift (± fraction)",
    "lr": "learning rate", "weight_decay": "weight decay (λ)", "dropout": "dropout (probability)",
    "precision": "precision (autocast)", "accumulate_steps": "accumulate (micro-batches/step)",
    "state_dtype": "moments stored in",
}


def label_text(param: Param) -> str:
    """A form label for ``param``, with its unit where the name leaves it open."""
    if param.name in LABELS:
        return LABELS[param.name]
    for suffix, unit in (("_steps", "steps"), ("_epochs", "epochs")):
        if param.name.endswith(suffix):
            return f"{param.name[: -len(suffix)].replace('_', ' ')} ({unit})"
    return param.name.replace("_", " ")


def param_widget(param: Param, value: Any, on_change: Callable[[Any], None]) -> QWidget:
    """A widget for one parameter, showing ``value``, calling ``on_change(new_value)`` on edits."""
    tip = param.help + (f" (range {param.low:g} … {param.high:g})" if param.low is not None else "")
    w: QWidget  # each branch narrows it to the widget it makes
    if param.kind == "bool":
        w = QCheckBox()
        w.setChecked(bool(value))
        w.toggled.connect(on_change)
    elif param.kind == "choice":
        w = QComboBox()
        w.addItems(list(param.choices))
        w.setCurrentText(str(value))
        w.currentTextChanged.connect(on_change)
    elif param.kind == "int":
        w = QSpinBox()
        w.setRange(int(param.low if param.low is not None else -(2**31)),
                   int(min(param.high if param.high is not None else 2**31 - 1, 2**31 - 1)))
        w.setValue(int(value))
        w.valueChanged.connect(on_change)
    elif param.kind == "float":
        w = SciSpinBox() if param.log else TidySpinBox()
        low = param.low if param.low is not None else -1e9
        high = param.high if param.high is not None else 1e9
        w.setRange(low, high)
        if not param.log:
            span = high - low
            w.setSingleStep(10 ** math.floor(math.log10(span)) / 10 if span > 0 else 0.1)
        w.setValue(float(value))
        w.valueChanged.connect(on_change)
    else:  # ints, str
        w = QLineEdit(",".join(str(v) for v in value) if param.kind == "ints" else str(value))
        w.editingFinished.connect(lambda: on_change(w.text()))
    w.setToolTip(tip)
    w.setObjectName(f"param_{param.name}")
    return wheel_guard.guard(w)  # forms are rebuilt when the entry changes: each new field is guarded here


def entry_tooltip(entry: Entry) -> str:
    return entry.description + (f"\n\n{entry.info}" if entry.info else "")


class RegistryForm(QWidget):
    """A combo box of a registry's entries and a form of the chosen entry's parameters."""

    edited = Signal()

    def __init__(self, session: Any, section: str, registry: Registry, parent: QWidget | None = None,
                 code_form: Callable[[Any, str, QFormLayout, QWidget], Any] | None = None) -> None:
        """``code_form(session, section, layout, parent)``: the rows of an entry tagged ``usercode`` (a user's
        file: the file, its class and arguments; gui/widgets/code_form.py), added to this form's layout."""
        super().__init__(parent)
        self.session, self.section, self.registry = session, section, registry
        self.code_form = code_form
        self.layout_ = QFormLayout(self)
        self.layout_.setContentsMargins(4, 4, 4, 4)
        self.combo = QComboBox()
        self.combo.setObjectName(f"{section}_choice")
        self.about = QLabel()
        self.about.setWordWrap(True)
        self.about.setObjectName("about")
        self._fill_combo()
        self.combo.currentIndexChanged.connect(self._choose)
        self.layout_.addRow(self.combo)
        self.layout_.addRow(self.about)
        self._param_rows: list[QWidget] = []
        self._code: Any = None  # the code form's rows, for a usercode entry
        self.rebuild()

    def _fill_combo(self) -> None:
        self.combo.blockSignals(True)
        self.combo.clear()
        for i, entry in enumerate(self.registry):
            self.combo.addItem(entry.name, entry.name)
            self.combo.setItemData(i, entry_tooltip(entry), role=3)  # Qt.ToolTipRole
        self.combo.setCurrentText(getattr(self.session.config, self.section).name)
        self.combo.blockSignals(False)

    def refresh_entries(self) -> None:
        self._fill_combo()
        self.rebuild()

    def _choose(self, _index: int) -> None:
        self.session.set_choice(self.section, self.combo.currentData(), suggest=True)
        self.rebuild()
        self.edited.emit()

    def _set(self, key: str, value: Any) -> None:
        try:
            self.session.set_param(self.section, key, value)
        except StudioError as err:
            self.session.error.emit("Invalid value", str(err))
            self.rebuild()
            return
        self.edited.emit()

    def rebuild(self) -> None:
        """Re-create the parameter widgets for the section's current entry and values."""
        for w in self._param_rows:
            self.layout_.removeRow(w)
        self._param_rows = []
        if self._code is not None:
            self._code.remove()
            self._code.deleteLater()
            self._code = None
        choice = getattr(self.session.config, self.section)
        if self.combo.currentText() != choice.name:
            self.combo.blockSignals(True)
            self.combo.setCurrentText(choice.name)
            self.combo.blockSignals(False)
        entry = self.registry.get(choice.name)
        self.about.setText(entry.description)
        self.about.setToolTip(entry_tooltip(entry))
        self.combo.setToolTip(entry_tooltip(entry))
        if "usercode" in entry.tags and self.code_form is not None:  # a user's file: its classes and arguments
            self._code = self.code_form(self.session, self.section, self.layout_, self)
            self._code.edited.connect(self.edited)
        for param in entry.params:
            if "usercode" in entry.tags and self.code_form is not None and param.name in ("path", "class", "args"):
                continue
            value = choice.params.get(param.name, param.default)
            widget = param_widget(param, value, partial(self._set, param.name))
            label = QLabel(label_text(param))
            label.setToolTip(param.help)
            self.layout_.addRow(label, widget)
            self._param_rows.append(widget)


class PlainForm(QWidget):
    """A form for a plain dataclass section (train, hardware) from a list of Params."""

    def __init__(self, session: Any, section: str, params: list[Param], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session, self.section, self.params = session, section, params
        self.layout_ = QFormLayout(self)
        self.layout_.setContentsMargins(4, 4, 4, 4)
        self.widgets: dict[str, QWidget] = {}
        obj = getattr(session.config, section)
        for p in params:
            w = param_widget(p, getattr(obj, p.name), partial(self._set, p))
            label = QLabel(label_text(p))
            label.setToolTip(p.help)
            self.layout_.addRow(label, w)
            self.widgets[p.name] = w

    def set_row_visible(self, name: str, visible: bool) -> None:
        self.layout_.setRowVisible(self.widgets[name], visible)

    def _set(self, param: Param, value: Any) -> None:
        try:
            self.session.set_param(self.section, param.name, param.coerce(value, f"{self.section}.{param.name}"))
        except StudioError as err:
            self.session.error.emit("Invalid value", str(err))

    def reload(self) -> None:
        """Show the section's current values."""
        obj = getattr(self.session.config, self.section)
        for name, w in self.widgets.items():
            w.blockSignals(True)
            value = getattr(obj, name)
            if isinstance(w, QCheckBox):
                w.setChecked(bool(value))
            elif isinstance(w, (QSpinBox, QDoubleSpinBox)):
                w.setValue(value)
            elif isinstance(w, QComboBox):
                w.setCurrentText(str(value))
            elif isinstance(w, QLineEdit):
                w.setText(",".join(map(str, value)) if isinstance(value, list) else str(value))
            w.blockSignals(False)
