"""The Paper checks view (Learn group): every check of ``core/checks.CHECKS`` — claim, paper, verdict, our numbers,
seconds — with "Run selected" and "Run all", and a detail pane with the paper's set-up, ours and each measure.

Built from CHECKS, so a new check module appears here by itself. Each check runs as its own background job
through the Session (``Session.start(CheckRequest(...))``), one after the other, so a row fills in as soon as its
check ends; Stop cancels the one running and drops the rest. The table shows each check's latest outcome however it
was run (here, a Teaching-lab lesson's Paper check button, ``studio check``): they are all kept in one place,
``core/checks/results.py``, read when the view is shown and whenever a check ends. Torch-free at import.
"""

from __future__ import annotations

import html
import time
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QHeaderView,
    QLabel,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from studio.core.checks import results
from studio.core.checks.catalog import CHECKS
from studio.core.contracts.checks import CheckRequest
from studio.core.vocab import JobKind
from studio.gui.session import theme
from studio.gui.widgets.job_panel import JobPanel, Words
from studio.gui.widgets.paper_check import PASS_COLOUR, ours_summary, outcome_html

COLUMNS = ("Check", "Claim", "Paper", "Verdict", "Ours", "Seconds")
CLAIM, PAPER, VERDICT, OURS, SECONDS = 1, 2, 3, 4, 5


class PaperChecksTab(QWidget):
    """``PaperChecksTab(session, parent)`` (``EXTRA_TABS``)."""

    uses_settings_panel = False  # nothing here reads the next run's settings: the table gets the width

    def __init__(self, session: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.names = list(CHECKS)
        self.outcomes: dict[str, dict[str, Any]] = {}
        self.pending: list[str] = []  # checks still to run after the current one
        self.ran: list[str] = []  # the checks run by the last Run selected / Run all
        self.running_name = ""
        # the check running (one job each, one after the other): Run selected, Run all, Stop, the bar, the status
        self.panel = JobPanel("Run selected", cancel_text="Stop", arrange="inline", words=Words(
            idle="", starting=None, cancelling=None, cancelled=None, failed=None))
        self.panel.run_clicked.connect(self.run_selected)
        self.panel.done.connect(self._done)
        self.panel.failed.connect(self._failed)
        self.panel.cancelled.connect(self._stopped)

        intro = QLabel("Each lesson and analysis claim, checked against its paper by a small, seeded reproduction "
                       "on the CPU (the same as `studio check`). Select a check to read the paper's set-up and ours.")
        intro.setWordWrap(True)
        self.table = QTableWidget(len(self.names), len(COLUMNS))
        self.table.setObjectName("paper_checks_table")
        self.table.setToolTip("The paper checks: select one for its set-ups and numbers, several to run them")
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        for col in range(len(COLUMNS)):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(CLAIM, QHeaderView.ResizeMode.Stretch)
        for col, width in ((PAPER, 220), (OURS, 170)):  # long citations and many numbers: elided, full in the tip
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.Interactive)
            self.table.setColumnWidth(col, width)
        header.setMinimumSectionSize(40)
        for row, name in enumerate(self.names):
            check = CHECKS[name]
            label = f"{name} (method check)" if check.is_method_check else name  # listed after the reproductions
            for col, text in enumerate((label, check.claim, check.paper.split(";")[0], "—", "", "")):
                item = QTableWidgetItem(text)
                item.setToolTip(check.claim if col == CLAIM else check.paper if col == PAPER else text)
                self.table.setItem(row, col, item)
        self.table.itemSelectionChanged.connect(self._show_detail)

        self.run_selected_button = self.panel.run_button
        self.run_selected_button.setObjectName("run_selected")
        self.run_selected_button.setToolTip("Run the selected checks (in the background)")
        self.run_all_button = QPushButton("Run all")
        self.run_all_button.setObjectName("run_all")
        self.run_all_button.setToolTip("Run every paper check, one after the other (minutes on a 2-core CPU)")
        self.run_all_button.clicked.connect(self.run_all)
        self.panel.add_button(self.run_all_button, at=1)  # Run selected, Run all, Stop
        self.stop_button = self.panel.cancel_button
        self.stop_button.setObjectName("stop_checks")
        self.stop_button.setToolTip("Cancel the check running and the ones waiting")
        self.progress, self.status = self.panel.bar, self.panel.status
        self.status.setObjectName("paper_checks_status")

        self.detail = QLabel()
        self.detail.setObjectName("paper_check_detail")
        self.detail.setWordWrap(True)
        self.detail.setTextFormat(Qt.TextFormat.RichText)
        self.detail.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        scroll = QScrollArea()
        scroll.setWidget(self.detail)
        scroll.setWidgetResizable(True)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.table)
        splitter.addWidget(scroll)
        splitter.setSizes([300, 300])
        splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.panel)
        layout.addWidget(splitter, 1)
        if self.names:
            self.table.selectRow(0)
        app = QApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.stop)
        session.job_ended.connect(self._job_ended)
        self.reload()

    # --- the kept outcomes -------------------------------------------------------------------
    def reload(self) -> None:
        """Show every check's latest kept outcome (``core/checks/results.py``), whoever ran it; rows of checks
        waiting or running here stay as they are."""
        busy = {*self.pending, self.running_name} if self.busy else set()
        for name, outcome in results.kept().items():
            if name in self.names and name not in busy:
                self.outcomes[name] = outcome
                self._set_row(name, outcome["verdict"], ours_summary(outcome), f"{outcome['seconds']:.1f}")
        self._show_detail()
        if not self.busy:
            self.panel.show_status(self.tally())

    def tally(self) -> str:
        """How many checks there are, how many have an outcome, how many of those PASS."""
        if not self.outcomes:
            return f"{len(self.names)} checks; none run yet."
        passed = sum(bool(o["passed"]) for o in self.outcomes.values())
        return f"{len(self.names)} checks; {len(self.outcomes)} run, {passed} PASS."

    def _job_ended(self, handle: Any) -> None:
        """A check ended somewhere (a Teaching-lab lesson's button): show what it kept."""
        if handle.kind == JobKind.CHECK and handle is not self.panel.handle:
            self.reload()

    def showEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        self.reload()  # `studio check` may have run meanwhile

    # --- running -----------------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        return self.panel.busy or bool(self.pending)

    def selected_names(self) -> list[str]:
        rows = sorted({index.row() for index in self.table.selectionModel().selectedRows()})
        return [self.names[r] for r in rows]

    def run_selected(self) -> None:
        self.run(self.selected_names())

    def run_all(self) -> None:
        self.run(list(self.names))

    def run(self, names: list[str]) -> None:
        """Run ``names`` one after the other (replacing a run in progress)."""
        if not names:
            self.panel.show_status("Select one or more checks first.")
            return
        self.stop()
        self.pending = list(names)
        self.ran = []
        for name in names:
            self._set_row(name, "…", "", "")
        self._next()

    def stop(self) -> None:
        """Cancel the check running and drop the ones waiting."""
        self.pending = []
        self.panel.cancel()

    def _stopped(self) -> None:
        self.pending = []
        self._finish("Stopped.")

    def _next(self) -> None:
        if not self.pending:
            passed = sum(bool(self.outcomes[n]["passed"]) for n in self.ran)
            self._finish(f"{passed} of {len(self.ran)} checks run PASS.")
            return
        self.running_name = self.pending.pop(0)
        self._set_row(self.running_name, "running", "", "")
        self.panel.start(self.session.start(CheckRequest((self.running_name,))))

    def _done(self, result: list[dict[str, Any]]) -> None:
        results.keep(result)
        for outcome in result:
            self.outcomes[outcome["name"]] = outcome
            self.ran.append(outcome["name"])
            self._set_row(outcome["name"], outcome["verdict"], ours_summary(outcome), f"{outcome['seconds']:.1f}")
        self._show_detail()
        self._next()

    def _failed(self, message: str) -> None:
        self._set_row(self.running_name, "error", "", "")
        self.pending = []
        self._finish(message.split("\n")[0], error=True)

    def _finish(self, text: str, error: bool = False) -> None:
        for name in self.names:  # rows still waiting go back to "not run"
            item = self._item(self.names.index(name), VERDICT)
            if item.text() in ("…", "running"):
                self._set_row(name, self.outcomes.get(name, {}).get("verdict", "—"), "", "")
        self.panel.show_status(text, error)

    def _set_row(self, name: str, verdict: str, ours: str, seconds: str) -> None:
        row = self.names.index(name)
        item = self._item(row, VERDICT)
        item.setText(verdict)
        colour = PASS_COLOUR if verdict == "PASS" else theme.error_colour() if verdict in ("FAIL", "error") else None
        item.setForeground(QColor(colour) if colour else self.palette().text())
        font = QFont(item.font())
        font.setBold(colour is not None)
        item.setFont(font)
        if ours or verdict not in ("PASS", "FAIL"):
            self._item(row, OURS).setText(ours)
            self._item(row, OURS).setToolTip(ours)
            self._item(row, SECONDS).setText(seconds)

    def _item(self, row: int, col: int) -> QTableWidgetItem:
        item = self.table.item(row, col)
        assert item is not None  # every cell is made in __init__
        return item

    # --- detail ------------------------------------------------------------------------------
    def _show_detail(self) -> None:
        names = self.selected_names()
        if not names:
            self.detail.setText("")
            return
        name = names[0]
        check = CHECKS[name]
        where = f"the demo {', '.join(check.demos)}" if check.demos else "this view (an analysis claim)"
        outcome = self.outcomes.get(name)
        when = (f" Last run {time.strftime('%Y-%m-%d %H:%M', time.localtime(outcome['finished']))}."
                if outcome and outcome.get("finished") else "")
        self.detail.setText(f"<h3>{html.escape(name)}</h3><p><b>Claim:</b> {html.escape(check.claim)}</p>"
                            + outcome_html(check, outcome)
                            + f"<p><i>Run in {where}; about {check.budget_s:.0f} s at most on a 2-core CPU.{when}"
                            "</i></p>")

    def set_presentation(self, on: bool) -> None:
        """Projector mode: larger text in the table and the detail."""
        font = QFont(self.font())
        base = QApplication.font().pointSize()
        font.setPointSize(round(base * 1.5) if on else base)
        self.setFont(font)
        self.table.resizeRowsToContents()
