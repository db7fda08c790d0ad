"""The class board (File › Class board…): a window, full screen for the projector, over a shared run store (the
folder every student's Studio writes to), read-only: the runs of one lesson ranked by the lesson's metric, each
with its student (hidden on request: "student 3"), its best value so far, the step it was logged at and the
settings that set it apart. It reads the store again every ``REFRESH_MS`` while shown (``core/runs/class_board``)."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QFont, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from studio.core.errors import StudioError
from studio.core.runs import class_board
from studio.core.runs.class_board import METRICS, BoardRow
from studio.core.runs.store import RunStore

REFRESH_MS = 2000
COLUMNS = ("#", "Student", "Run", "Best", "Step", "Status", "What differs")


class ClassBoard(QWidget):
    """``ClassBoard(store, lesson)``: ``refresh()`` reads the store now; ``rows`` are the rows shown."""

    def __init__(self, store: RunStore, lesson: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setObjectName("class_board")
        self.store = store
        self.rows: list[BoardRow] = []
        self.setWindowTitle(f"Class board — {store.home}")
        self.heading = QLabel("")
        self.heading.setObjectName("board_heading")
        self.lesson_box = QComboBox()
        self.lesson_box.setObjectName("board_lesson")
        self.lesson_box.setToolTip("The lesson whose runs are ranked (runs trained with the lesson open)")
        self.metric_box = QComboBox()
        self.metric_box.setObjectName("board_metric")
        for metric in METRICS:
            self.metric_box.addItem(str(metric), str(metric))
        self.metric_box.setToolTip("Ranked by each run's best value so far: the highest accuracy, the lowest loss")
        self.hide_names = QCheckBox("Hide names")
        self.hide_names.setObjectName("board_hide_names")
        self.hide_names.setToolTip("Show each student as a number (in the order of their first run)")
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("board_table")
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        for i in range(len(COLUMNS) - 1):
            header.setSectionResizeMode(i, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.status = QLabel("")
        self.status.setObjectName("board_status")
        controls = QHBoxLayout()
        for label, widget in (("Lesson", self.lesson_box), ("Ranked by", self.metric_box)):
            controls.addWidget(QLabel(label))
            controls.addWidget(widget)
        controls.addWidget(self.hide_names)
        controls.addStretch(1)
        controls.addWidget(QLabel("F11: full screen · Esc: leave it"))
        column = QVBoxLayout(self)
        column.addWidget(self.heading)
        column.addLayout(controls)
        column.addWidget(self.table, 1)
        column.addWidget(self.status)
        self._fill_lessons(lesson)
        for signal in (self.lesson_box.currentIndexChanged, self.metric_box.currentIndexChanged,
                       self.hide_names.toggled):
            signal.connect(lambda *_: self.refresh())
        self.timer = QTimer(self)
        self.timer.setInterval(REFRESH_MS)
        self.timer.timeout.connect(self.refresh)
        self.timer.start()
        QShortcut(QKeySequence("F11"), self, self.toggle_full_screen)
        QShortcut(QKeySequence("Esc"), self, self.showNormal)
        self.set_scale(1.0)
        self.refresh()

    def _fill_lessons(self, wanted: str = "") -> None:
        current = wanted or self.lesson_box.currentData() or ""
        try:
            lessons = class_board.lessons_in(self.store)
        except (StudioError, OSError):
            lessons = []
        if lessons == [self.lesson_box.itemData(i) for i in range(self.lesson_box.count())]:
            return
        self.lesson_box.blockSignals(True)
        self.lesson_box.clear()
        for lesson in lessons:
            self.lesson_box.addItem(lesson, lesson)
        if current in lessons:
            self.lesson_box.setCurrentIndex(lessons.index(current))
        self.lesson_box.blockSignals(False)

    def set_scale(self, scale: float) -> None:
        """Type large enough for the back of the room: the heading and the table grow with ``scale``."""
        base = QFont(self.font())
        size = max(base.pointSizeF(), 9.0)
        table_font = QFont(base)
        table_font.setPointSizeF(size * 1.4 * scale)
        self.table.setFont(table_font)
        self.table.horizontalHeader().setFont(table_font)
        heading_font = QFont(base)
        heading_font.setPointSizeF(size * 2.0 * scale)
        heading_font.setBold(True)
        self.heading.setFont(heading_font)

    def toggle_full_screen(self) -> None:
        self.showNormal() if self.isFullScreen() else self.showFullScreen()

    def refresh(self) -> None:
        """Read the store and redraw the board (a store that cannot be read now is said on the status line)."""
        self._fill_lessons()
        lesson = self.lesson_box.currentData()
        metric = str(self.metric_box.currentData())
        if not lesson:
            self.rows = []
            self.table.setRowCount(0)
            self.heading.setText("Class board")
            self.status.setText(f"No run in {self.store.home} was trained for a lesson yet: students train with the "
                                "lesson open, their Studio writing to this folder (STUDIO_HOME).")
            return
        try:
            self.rows = class_board.board(self.store, lesson, metric, self.hide_names.isChecked())
        except (StudioError, OSError) as err:
            self.status.setText(f"Could not read {self.store.home} just now ({err}); trying again.")
            return
        self.heading.setText(f"{lesson} — ranked by {metric}")
        self.table.setRowCount(len(self.rows))
        for r, row in enumerate(self.rows):
            values = ("" if row.rank is None else str(row.rank), row.student, row.name,
                      "—" if row.value is None else f"{row.value:.4f}", "" if row.step is None else f"{row.step:,}",
                      row.status, row.settings or "(the same settings)")
            for c, text in enumerate(values):
                item = QTableWidgetItem(text)
                if c in (0, 3, 4):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(r, c, item)
        running = sum(1 for row in self.rows if row.status == "running")
        self.status.setText(f"{len(self.rows)} runs, {running} training; updated every {REFRESH_MS // 1000} s from "
                            f"{self.store.home} (read-only).")
