"""The form of a ``python`` model or dataset: the file, the class (every model or dataset the file defines) and
one field per ``__init__`` argument, all read by parsing the file (core/usercode/reader.py): the window never
imports the user's code, nor torch.

A file that cannot be read (missing, a syntax error, no model) shows its one sentence in place of the fields;
the arguments the dataset fills in (input shape, classes, channels …) are named, not asked for.
"""

from __future__ import annotations

import tomllib
from functools import partial
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QComboBox, QFileDialog, QFormLayout, QHBoxLayout, QLabel, QLineEdit, QPushButton, QWidget

from studio.core.errors import StudioError
from studio.core.usercode.arguments import Argument
from studio.core.usercode.reader import DATASET, MODEL, CodeFile, Definition, read_file
from studio.gui.widgets import wheel_guard
from studio.gui.widgets.forms import param_widget

ROLES = {"model": MODEL, "data": DATASET}


def definitions_of(path: str, role: str) -> tuple[CodeFile | None, list[Definition], str]:
    """(the parsed file, its definitions of ``role``, the sentence when there are none or it cannot be read)."""
    if not path:
        return None, [], f"Choose the .py file that defines your {role}."
    try:
        code = read_file(path)
    except StudioError as err:
        return None, [], str(err)
    found = code.of_role(role)
    if not found:
        try:
            code.get("", role)
        except StudioError as err:
            return code, [], str(err)
    return code, found, ""


def typed(argument: Argument, value: Any) -> Any:
    """A field's text or value as the argument's type (text of an unannotated one read as TOML: 64 → 64)."""
    if argument.kind in ("any",) and isinstance(value, str):
        try:
            return tomllib.loads(f"v = {value}")["v"]
        except tomllib.TOMLDecodeError:
            return value
    if argument.kind == "ints" and isinstance(value, str):
        return [int(v) for v in value.replace(" ", "").split(",") if v]
    return value


class CodeForm(QObject):
    """File, class and arguments of a ``python`` section (``section``: "model" or "data"), as rows of the
    section's form (``layout``: the registry form's, so the arguments line up with the entry's other settings)."""

    edited = Signal()

    def __init__(self, session: Any, section: str, layout: QFormLayout, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session, self.section, self.role, self.form = session, section, ROLES[section], layout
        self.path = QLineEdit()
        self.path.setObjectName(f"{section}_code_path")
        self.path.setPlaceholderText(f"a .py file that defines your {self.role}")
        self.path.editingFinished.connect(lambda: self.set_path(self.path.text().strip()))
        choose = QPushButton("Choose…")
        choose.setObjectName(f"{section}_code_choose")
        choose.clicked.connect(self.choose_file)
        self.file_row = QWidget()
        line = QHBoxLayout(self.file_row)
        line.setContentsMargins(0, 0, 0, 0)
        line.addWidget(self.path, 1)
        line.addWidget(choose)
        self.form.addRow("file", self.file_row)
        self.classes = wheel_guard.guard(QComboBox())
        self.classes.setObjectName(f"{section}_code_class")
        self.classes.currentTextChanged.connect(self.set_class)
        self.form.addRow("class", self.classes)
        self.note = QLabel()
        self.note.setObjectName(f"{section}_code_note")
        self.note.setWordWrap(True)
        self.form.addRow(self.note)
        self.arg_rows: dict[str, QWidget] = {}
        self.rebuild()

    @property
    def params(self) -> dict[str, Any]:
        return getattr(self.session.config, self.section).params

    def remove(self) -> None:
        """Take every row of this form out of the layout (the section chose another entry)."""
        for widget in [*self.arg_rows.values(), self.note, self.classes, self.file_row]:
            self.form.removeRow(widget)
        self.arg_rows = {}

    def choose_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self.file_row, f"Your {self.role}'s Python file", str(Path.cwd()),
                                              "Python files (*.py)")
        if path:
            self.set_path(path)

    def set_path(self, path: str) -> None:
        """Point the section at ``path``; its first definition becomes the class, the arguments start afresh."""
        if path and path == self.params.get("path"):
            return
        _, found, _ = definitions_of(path, self.role)
        self.session.set_param(self.section, "path", path)
        self.session.set_param(self.section, "class", found[0].name if found else "")
        self.session.set_param(self.section, "args", {})
        self.rebuild()
        self.edited.emit()

    def set_class(self, name: str) -> None:
        if not name or name == self.params.get("class"):
            return
        self.session.set_param(self.section, "class", name)
        self.session.set_param(self.section, "args", {})
        self.rebuild()
        self.edited.emit()

    def set_argument(self, argument: Argument, value: Any) -> None:
        args = dict(self.params.get("args") or {})
        if isinstance(value, str) and not value.strip():  # an emptied field: the argument's own default again
            args.pop(argument.name, None)
            self.session.set_param(self.section, "args", args)
            self.edited.emit()
            return
        try:
            args[argument.name] = argument.coerce(typed(argument, value), f"{self.section}.args.{argument.name}",
                                                  str(self.params.get("class")))
        except (StudioError, ValueError) as err:
            self.session.error.emit("Invalid value", str(err) if isinstance(err, StudioError) else
                                    f"{self.section}.args.{argument.name}: {err}")
            self.rebuild()
            return
        self.session.set_param(self.section, "args", args)
        self.edited.emit()

    def rebuild(self) -> None:
        """Fields for the section's file, class and arguments as the config has them now."""
        for widget in self.arg_rows.values():
            self.form.removeRow(widget)
        self.arg_rows = {}
        path = str(self.params.get("path") or "")
        self.path.setText(path)
        self.path.setToolTip(path)
        code, found, problem = definitions_of(path, self.role)
        self.classes.blockSignals(True)
        self.classes.clear()
        for d in found:
            self.classes.addItem(d.name)
            self.classes.setItemData(self.classes.count() - 1, d.doc or f"line {d.line}", role=3)
        chosen = str(self.params.get("class") or "")
        self.classes.setCurrentText(chosen)
        self.classes.blockSignals(False)
        self.classes.setEnabled(bool(found))
        definition = next((d for d in found if d.name == chosen), None)
        if definition is None:
            self.note.setText(problem or (f"{Path(path).name} has no {self.role} called {chosen!r}; choose one "
                                          "above." if chosen else f"Choose a {self.role} of the file."))
            return
        filled = [a.name for a in definition.arguments if a.from_data]
        kind = "function" if definition.form == "factory" else "class"
        text = f"{definition.doc + ' ' if definition.doc else ''}({kind} at line {definition.line}; read, not run)"
        if filled:
            text += f" · Studio fills in {', '.join(filled)}"
        self.note.setText(text)
        values = self.params.get("args") or {}
        for argument in definition.arguments:
            if argument.from_data:
                continue
            param = argument.param()
            value = values.get(argument.name, param.default)
            if argument.kind == "any" and not isinstance(value, str):
                value = str(value)
            widget = param_widget(param, value, partial(self.set_argument, argument))
            widget.setObjectName(f"{self.section}_arg_{argument.name}")
            label = QLabel(argument.name + (" *" if argument.required else ""))
            label.setToolTip(param.help)
            position: Any = self.form.getWidgetPosition(self.note)  # (row, role); typed "object" in PySide6
            row = int(position[0]) + 1 + len(self.arg_rows)
            self.form.insertRow(row, label, widget)
            self.arg_rows[argument.name] = widget
