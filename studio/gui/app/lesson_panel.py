"""An opened lesson (``core/lessons``): a strip docked under the window's pages, read-only, on its first step, with Back
and Next. Each step is shown in the window as it comes: a demo opens in the Teaching lab with the lesson's
settings, a dataset or a training config is loaded into the forms (the student's copy: the lesson file is never
written), runs to compare are selected, notes are shown as plain text (never as HTML: a lesson carries no links,
scripts or pictures)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDockWidget,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from studio.core.errors import StudioError
from studio.core.lessons.lesson import Lesson, Step

STRIP_HEIGHT = 150  # the strip under the window's pages, at most


class LessonPanel(QDockWidget):
    """``LessonPanel(shell, lesson, source)``; ``go(i)`` shows step i (0-based); ``index`` is the step shown."""

    def __init__(self, shell: Any, lesson: Lesson, source: str) -> None:
        super().__init__(f"Lesson: {lesson.title or source}", shell.window)
        self.setObjectName("lesson_panel")
        self.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetClosable
                         | QDockWidget.DockWidgetFeature.DockWidgetMovable)
        self.shell, self.lesson, self.source = shell, lesson, source
        self.index = -1
        self.counter = QLabel("")
        self.counter.setObjectName("lesson_counter")
        self.heading = QLabel("")
        self.heading.setObjectName("lesson_heading")
        self.heading.setWordWrap(True)
        self.heading.setTextFormat(Qt.TextFormat.PlainText)
        font = self.heading.font()
        font.setPointSizeF(font.pointSizeF() * 1.3)
        font.setBold(True)
        self.heading.setFont(font)
        self.notes = QPlainTextEdit()
        self.notes.setObjectName("lesson_notes")
        self.notes.setReadOnly(True)
        self.what = QLabel("")
        self.what.setObjectName("lesson_what")
        self.what.setWordWrap(True)
        self.what.setTextFormat(Qt.TextFormat.PlainText)
        self.back = QPushButton("◀ Back")
        self.back.setObjectName("lesson_back")
        self.next = QPushButton("Next ▶")
        self.next.setObjectName("lesson_next")
        self.back.clicked.connect(lambda: self.go(self.index - 1))
        self.next.clicked.connect(lambda: self.go(self.index + 1))
        self.student = QLineEdit(default_student())
        self.student.setObjectName("lesson_student")
        self.student.setToolTip("Your name on the class board: the runs you train while the lesson is open carry it")
        self.name_label = QLabel("Your name")
        self.presentation = False
        self._arrange()

    def _arrange(self) -> None:
        """A strip under the window's pages: the step and its heading, the notes, Next and Back side by side, so
        a demo keeps the window's width (1024 pixels wide included); "Your name" and what the step did are left
        out in presentation mode (the heading's tooltip says the latter)."""
        body = QWidget()
        column = QVBoxLayout()
        column.addWidget(self.counter)
        column.addWidget(self.heading)
        column.addStretch(1)
        name_row = QHBoxLayout()
        name_row.addWidget(self.name_label)
        name_row.addWidget(self.student, 1)
        column.addLayout(name_row)
        notes = QVBoxLayout()
        notes.addWidget(self.notes, 1)
        notes.addWidget(self.what)
        arrows = QVBoxLayout()
        arrows.addWidget(self.next)
        arrows.addWidget(self.back)
        arrows.addStretch(1)
        strip = QHBoxLayout(body)
        strip.setContentsMargins(4, 0, 4, 2)
        strip.addLayout(column, 2)
        strip.addLayout(notes, 3)
        strip.addLayout(arrows)
        self.setWidget(body)
        self.setMaximumHeight(STRIP_HEIGHT)

    def set_presentation(self, on: bool) -> None:
        """Presentation mode: only the heading, the notes and the buttons (the class reads them from afar)."""
        self.presentation = on
        for part in (self.name_label, self.student, self.what):
            part.setVisible(not on)

    def lesson_slug(self) -> str:
        from studio.core.runs.class_board import slug

        return slug(self.lesson.title or Path(self.source).stem)

    def tag_run(self, run_id: str) -> None:
        """Tag a run trained with the lesson open, for the class board (``core/runs/class_board``)."""
        from studio.core.runs.class_board import lesson_tags

        try:
            self.shell.session.store.add_tags([run_id], lesson_tags(self.lesson.title or Path(self.source).stem,
                                                                    self.student.text().strip() or "anonymous"))
        except StudioError as err:
            self.shell.status.show_message(f"The run was not tagged for the class board: {err}")

    def go(self, index: int) -> None:
        """Show step ``index`` (kept within the lesson) in the panel and in the window."""
        index = max(0, min(index, len(self.lesson.steps) - 1))
        self.index = index
        step = self.lesson.steps[index]
        self.counter.setText(f"Step {index + 1} of {len(self.lesson.steps)}")
        self.heading.setText(step.heading())
        self.notes.setPlainText(step.notes)
        self.notes.setVisible(bool(step.notes))
        self.back.setEnabled(index > 0)
        self.next.setEnabled(index < len(self.lesson.steps) - 1)
        try:
            self.what.setText(show_step(self.shell, step))
        except StudioError as err:
            self.what.setText(f"This step could not be shown: {err}")
        self.heading.setToolTip(self.what.text())


def default_student() -> str:
    """The account's name, as the class board's first guess at the student's."""
    import getpass

    try:
        return getpass.getuser()
    except (OSError, KeyError):
        return ""


def show_step(shell: Any, step: Step) -> str:
    """Show ``step`` in the window; one line saying what it did."""
    if step.kind == "demo":
        from studio.gui.demos.lab import TITLES

        lab = shell.pages.tab("teaching_lab")
        shell.pages.tabs.setCurrentWidget(lab)
        view = lab.open(step.demo)
        view.set_params(step.params)  # the badge says whether the shipped recording shows these settings
        return f"The Teaching lab shows {TITLES.get(step.demo, step.demo)} with the lesson's settings; press " \
               f"{view.compute_button.text()} to run it."
    if step.kind in ("dataset", "config"):
        from studio.core.config import RunConfig
        from studio.core.config.run_config import default_choice

        if step.kind == "config":
            config = RunConfig.from_dict(step.config)
        else:
            data = {"name": step.dataset, **default_choice("data", step.dataset).params}
            config = RunConfig.from_dict({**shell.session.config.to_dict(), "data": data})
        shell.session.set_config(config)
        shell.settings.reload()
        shell.pages.tabs.setCurrentIndex(0)
        what = f"the dataset {step.dataset}" if step.kind == "dataset" else "the lesson's training settings"
        return f"The forms hold {what}; press Train to run it."
    if step.kind == "compare":
        ids_by_name = {name: run_id for run_id, name in shell.run_list.names.items()}
        found = [ids_by_name.get(n) or _run_id(shell, n) for n in step.runs]
        chosen = [r for r in found if r]
        missing = [n for n, r in zip(step.runs, found, strict=True) if not r]
        shell.session.set_selection(chosen)
        shell.pages.tabs.setCurrentIndex(0)
        text = f"{len(chosen)} of {len(step.runs)} runs are selected: their curves are side by side."
        if missing:
            text += f" Not in this run store: {', '.join(missing)}."
        return text
    return ""


def _run_id(shell: Any, name: str) -> str | None:
    run = shell.session.find_run(name)
    return run.id if run is not None else None
