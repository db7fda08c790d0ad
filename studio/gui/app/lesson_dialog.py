"""File › Save as lesson…: the steps the window's current state offers (each demo opened in the Teaching lab with
its settings now, the training settings, the dataset, the selected runs to compare, a page of notes), each with a
tick and notes of its own, and the lesson's title; saved as one ``.studio-lesson`` file (``core/lessons``)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QWidget,
)

from studio.core.errors import StudioError
from studio.core.lessons.lesson import Lesson, Step, check_config


def steps_from_state(shell: Any) -> list[Step]:
    """What the window shows now, as lesson steps in a sensible order: a note, the demos opened in the Teaching lab
    (in the order they were opened), the dataset and the training settings, the selected runs."""
    from studio.gui.demos.lab import TeachingLab

    steps = [Step("note", "Welcome")]
    for i in range(shell.pages.tabs.count()):
        tab = shell.pages.tabs.widget(i)
        if isinstance(tab, TeachingLab):  # built: its demos in the order they were opened
            steps += [Step("demo", view.short_title, demo=name, params=dict(view.params))
                      for name, view in tab.views.items()]
    config = shell.session.config.to_dict()
    steps.append(Step("dataset", dataset=shell.session.config.data.name))
    try:
        steps.append(Step("config", config=check_config(config, "the training settings")))
    except StudioError:
        pass  # settings that name the user's own code: not for a lesson (a student's Studio would run it)
    runs = shell.session.selected_runs()
    if runs:
        steps.append(Step("compare", runs=[shell.run_list.names.get(r, r) for r in runs]))
    return steps


class LessonDialog(QDialog):
    """The steps to tick and annotate; ``lesson()`` once accepted."""

    def __init__(self, steps: list[Step], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Save as lesson")
        self.steps = steps
        self.title = QLineEdit()
        self.title.setObjectName("lesson_title")
        self.title.setPlaceholderText("e.g. Week 3: how optimizers move")
        self.list = QListWidget()
        self.list.setObjectName("lesson_steps")
        for step in steps:
            item = QListWidgetItem(f"{step.kind}: {step.heading()}")
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if step.kind != "dataset" else Qt.CheckState.Unchecked)
            self.list.addItem(item)
        self.notes = QPlainTextEdit()
        self.notes.setObjectName("lesson_step_notes")
        self.notes.setPlaceholderText("What the students should look at in this step (plain text)")
        self.list.currentRowChanged.connect(self._row_changed)
        self.notes.textChanged.connect(self._notes_changed)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        form.addRow("Title", self.title)
        form.addRow(QLabel("Steps, in order (tick those to keep; a step's notes below it)"))
        form.addRow(self.list)
        form.addRow("Notes", self.notes)
        form.addRow(buttons)
        self.resize(560, 520)
        self.list.setCurrentRow(0)

    def _row_changed(self, row: int) -> None:
        self.notes.blockSignals(True)
        self.notes.setPlainText(self.steps[row].notes if 0 <= row < len(self.steps) else "")
        self.notes.blockSignals(False)

    def _notes_changed(self) -> None:
        row = self.list.currentRow()
        if 0 <= row < len(self.steps):
            self.steps[row].notes = self.notes.toPlainText()

    def lesson(self) -> Lesson:
        kept = [s for i, s in enumerate(self.steps) if self.list.item(i).checkState() == Qt.CheckState.Checked]
        return Lesson(self.title.text().strip(), kept)
